// Fault matrix 15 (docs/reliability.md#fault-matrix): PostgreSQL stopped (connections refused and
// cut) and paused (connections open, never answered, as under SIGSTOP) under load, through a TCP
// proxy in front of the shared PostgreSQL, which keeps serving every other test.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { TEST_DATABASE_URL, testEnv } from '../support/env.js';
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
import { request, until } from '../support/process.js';
import { createSeason, groupProgress, openServices, waitUntilCaughtUp, type Services } from '../support/services.js';
import { startTcpProxy } from '../support/tcp-proxy.js';

const pgUrl = new URL(TEST_DATABASE_URL);
let proxy: Awaited<ReturnType<typeof startTcpProxy>>;
let ladder: LadderProcess | undefined;
let s: Services;

beforeAll(async () => {
  proxy = await startTcpProxy(pgUrl.hostname, Number(pgUrl.port || 5432));
});
afterAll(async () => {
  await ladder?.kill();
  await s?.close();
  await proxy?.close();
});

it('15. PostgreSQL stopped, then paused, under load: ingest pauses and resumes, the API answers UNAVAILABLE, nothing dead-lettered or lost', async () => {
  const viaProxy = new URL(TEST_DATABASE_URL);
  viaProxy.port = String(proxy.port);
  const env = testEnv({ DATABASE_URL: viaProxy.toString() });
  s = openServices(parseConfig({ ...env, DATABASE_URL: TEST_DATABASE_URL })); // the test's own checks: direct
  const season = await createSeason(s, { name: 'faults postgres' });
  ladder = await startLadder(env);
  const load = gameServers({
    url: () => ladder!.url!,
    apiKey: await submitKey(s),
    season,
    rate: knob('RATE', 300),
    players: 2_000,
    seed: 15,
  });
  const admin = s.kafka.admin();
  await admin.connect();
  const phases: Record<string, unknown> = {};
  try {
    for (const [fault, seconds] of [
      ['stopped', knob('PG_STOP_S', 10)],
      ['paused', knob('PG_PAUSE_S', 8)],
    ] as const) {
      await sleep(knob('BETWEEN_S', 4));
      const failuresBefore = { ...load.report.failures };
      const acksBefore = load.report.matches;
      if (fault === 'stopped') proxy.cut();
      else proxy.hang();
      const faultAt = Date.now();
      // Ingest is held: what it committed stays put while results wait in Kafka.
      await sleep(Math.min(3, seconds / 2));
      const held = await groupProgress(admin, s.config.kafka.groupId, s.config.kafka.topic);
      await sleep(seconds - Math.min(3, seconds / 2));
      const still = await groupProgress(admin, s.config.kafka.groupId, s.config.kafka.topic);
      proxy.restore();
      phases[fault] = {
        seconds,
        acknowledgedDuring: load.report.matches - acksBefore,
        unavailableDuring: (load.report.failures.UNAVAILABLE ?? 0) - (failuresBefore.UNAVAILABLE ?? 0),
        waitingInKafka: still.reduce((n, p) => n + p.end - p.committed, 0),
      };
      expect(
        still.map((p) => p.committed),
        `${fault}: nothing committed`,
      ).toEqual(held.map((p) => p.committed));
      expect((phases[fault] as { unavailableDuring: number }).unavailableDuring, fault).toBeGreaterThan(0);
      expect(Date.now() - faultAt).toBeGreaterThanOrEqual(seconds * 1000);
    }
    await sleep(knob('AFTER_S', 4));
    const report = await load.stop();
    await waitUntilCaughtUp(s, 'ingest to commit everything', 120_000);
    await until('/ready', 60_000, async () => (await request(ladder!.port!, '/ready')).status === 200 || undefined);
    const dlq = await admin.fetchTopicOffsets(s.config.kafka.dlqTopic);
    printReport('15 postgres', {
      acknowledged: report.results.length,
      failures: report.failures,
      phases,
      unavailableAnswerMs: spread(report.unavailableMs),
      slowestFailureMs: report.slowestFailureMs,
      slowestFailure: report.slowestFailure,
      longestUnavailableMs: report.longestUnavailableMs,
    });
    expect(report.refused).toEqual([]);
    expect(dlq.map((p) => Number(p.high))).toEqual([0]);
    expect(ladder.entry.child.exitCode).toBeNull();
    await expectExactlyOnce(s, season, report.results);
  } finally {
    await admin.disconnect();
  }
}, 300_000);
