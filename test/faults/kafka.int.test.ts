// Fault matrix 13 and 19 (docs/reliability.md#fault-matrix): the Kafka broker SIGKILLed and
// restarted under load; the API killed between Kafka's acknowledgement and its answer. A private
// broker (the shared one on 9092 stays up), real ladder processes.
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { createIdempotentProducer } from '../../src/kafka/producer.js';
import { testEnv } from '../support/env.js';
import {
  expectExactlyOnce,
  gameServers,
  knob,
  printReport,
  sleep,
  spread,
  startLadder,
  submitKey,
  type LadderProcess,
} from '../support/faults.js';
import { startKafkaBroker, type KafkaBroker } from '../support/kafka-broker.js';
import { request } from '../support/process.js';
import { createSeason, openServices, readTopic, waitUntilCaughtUp, type Services } from '../support/services.js';

let broker: KafkaBroker;
let ladder: LadderProcess | undefined;
let s: Services;

beforeAll(async () => {
  broker = await startKafkaBroker({ proxied: true });
}, 180_000);
afterAll(async () => {
  await ladder?.kill();
  await s?.close();
  await broker?.close();
});

async function topicSize(topic: string): Promise<number> {
  const admin = s.kafka.admin();
  await admin.connect();
  try {
    return (await admin.fetchTopicOffsets(topic)).reduce((n, p) => n + Number(p.high), 0);
  } finally {
    await admin.disconnect();
  }
}

it('a send that gave up while the broker was unreachable, after the broker wrote it: later sends are neither dropped nor refused', async () => {
  // What flaked fault 13: kafkajs takes a failed request's sequence numbers back although the
  // broker wrote its batch; once that send gave up (its reconnects ran out), the next batch reused
  // them: one of the same size was acknowledged as a duplicate and never stored, any other
  // was refused as out of order, and so was every batch after it.
  const topic = `producer-in-doubt-${Date.now()}`;
  const direct = new Kafka({ brokers: [broker.brokers], logLevel: logLevel.NOTHING });
  const admin = direct.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
  await admin.disconnect();
  // Few reconnects, so the send gives up within a second or two (ladder's client: 8).
  const viaProxy = new Kafka({
    brokers: [broker.proxiedBrokers],
    logLevel: logLevel.NOTHING,
    retry: { initialRetryTime: 100, retries: 2 },
  });
  const producer = createIdempotentProducer(viaProxy, { retry: { initialRetryTime: 100, maxRetryTime: 500 } });
  await producer.connect();
  const batch = (name: string, n = 3) => ({
    topic,
    messages: Array.from({ length: n }, (_, i) => ({ key: 'k', value: `${name}${i}` })),
  });
  try {
    await producer.send(batch('a'));
    // The broker writes b; its answer is lost with the connection, and no reconnect gets through.
    broker.proxy!.onProduceAnswer = () => {
      broker.proxy!.cut();
      return 'drop';
    };
    await expect(producer.send(batch('b'))).rejects.toThrow();
    broker.proxy!.onProduceAnswer = undefined;
    broker.proxy!.mend();
    await producer.send(batch('c')); // as many messages as b: the broker's duplicate
    await producer.send(batch('d', 5)); // any other number: out of order
    await producer.send(batch('e'));
  } finally {
    broker.proxy!.onProduceAnswer = undefined;
    broker.proxy!.mend();
    await producer.disconnect();
  }
  await admin.connect();
  const high = Number((await admin.fetchTopicOffsets(topic))[0]!.high);
  await admin.disconnect();
  const stored = (await readTopic(direct, topic, high)).map((m) => m.value);
  expect(stored).toEqual([
    'a0',
    'a1',
    'a2',
    'b0',
    'b1',
    'b2',
    'c0',
    'c1',
    'c2',
    'd0',
    'd1',
    'd2',
    'd3',
    'd4',
    'e0',
    'e1',
    'e2',
  ]);
}, 120_000);

it('19. the API killed after Kafka acknowledged a match, before answering: the retry with the same matchId counts once', async () => {
  // The API reaches Kafka through a proxy that sees each Produce answer: the first one after it
  // is armed kills the API (SIGKILL) and is never delivered.
  const env = testEnv({ KAFKA_BROKERS: broker.proxiedBrokers, KAFKA_SESSION_TIMEOUT_MS: '6000' });
  s = openServices(parseConfig({ ...env, KAFKA_BROKERS: broker.brokers }));
  const season = await createSeason(s, { name: 'faults api killed' });
  let api = (ladder = await startLadder(env));
  const load = gameServers({
    url: () => api.url!,
    apiKey: await submitKey(s),
    season,
    rate: knob('RATE_19', 200),
    players: 2_000,
    seed: 19,
  });
  await sleep(2);
  let killed = 0;
  broker.proxy!.onProduceAnswer = () => {
    if (killed++ === 0) api.entry.child.kill('SIGKILL');
    return 'drop';
  };
  await api.entry.exited;
  broker.proxy!.onProduceAnswer = undefined;
  const producedBeforeRestart = await topicSize(env.KAFKA_TOPIC!);
  const acknowledgedBeforeKill = load.report.results.length;
  api = ladder = await startLadder(env);
  await sleep(3);
  const report = await load.stop();
  await waitUntilCaughtUp(s, 'ingest to commit everything', 120_000);

  const produced = await topicSize(env.KAFKA_TOPIC!);
  printReport('19 api killed after ack', {
    acknowledged: report.results.length,
    producedBeforeRestart,
    acknowledgedBeforeKill,
    produced,
    failures: report.failures,
  });
  expect(report.refused).toEqual([]);
  // Kafka held results no game server had been told about: those of the killed produce.
  expect(producedBeforeRestart).toBeGreaterThan(acknowledgedBeforeKill);
  // Their retries were produced again: Kafka holds them twice, PostgreSQL and the boards once.
  expect(produced).toBeGreaterThan(report.results.length);
  await expectExactlyOnce(s, season, report.results);
  await ladder.stop();
  ladder = undefined;
  await s.close();
}, 300_000);

it('13. Kafka SIGKILLed and restarted under load: UNAVAILABLE, never a silent accept; ingest resumes in the same process; nothing lost', async () => {
  const env = testEnv({ KAFKA_BROKERS: broker.brokers, KAFKA_SESSION_TIMEOUT_MS: '10000', SUBMIT_TIMEOUT_MS: '5000' });
  s = openServices(parseConfig(env));
  const season = await createSeason(s, { name: 'faults kafka' });
  ladder = await startLadder(env);
  const load = gameServers({
    url: () => ladder!.url!,
    apiKey: await submitKey(s),
    season,
    rate: knob('RATE', 300),
    players: 2_000,
    seed: 13,
  });
  await sleep(knob('BEFORE_S', 4));
  const killedAt = Date.now();
  await broker.kill();
  await sleep(knob('KAFKA_DOWN_S', 5));
  await broker.start();
  const restartedMs = Date.now() - killedAt;
  await sleep(knob('AFTER_S', 5));
  const report = await load.stop();
  await waitUntilCaughtUp(s, 'ingest to commit everything after the broker came back', 120_000);

  printReport('13 kafka', {
    acknowledged: report.results.length,
    failures: report.failures,
    brokerDownMs: restartedMs,
    longestUnavailableMs: report.longestUnavailableMs,
    unavailableAnswerMs: spread(report.unavailableMs),
    slowestFailureMs: report.slowestFailureMs,
    slowestFailure: report.slowestFailure,
  });
  expect(report.refused).toEqual([]);
  expect(report.failures.UNAVAILABLE ?? 0).toBeGreaterThan(0);
  expect(Object.keys(report.failures).filter((c) => c !== 'UNAVAILABLE' && c !== 'NETWORK')).toEqual([]);
  // The same process consumed it all: no restart needed.
  expect(ladder.entry.child.exitCode).toBeNull();
  expect((await request(ladder.port!, '/ready')).status).toBe(200);
  await expectExactlyOnce(s, season, report.results);
  const admin = s.kafka.admin();
  await admin.connect();
  const dlq = await admin.fetchTopicOffsets(s.config.kafka.dlqTopic);
  await admin.disconnect();
  expect(dlq.map((p) => Number(p.high))).toEqual([0]);
}, 300_000);
