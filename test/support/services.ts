// Real clients for integration tests, closed by the caller.
import type { Admin, Kafka } from 'kafkajs';
import type { Redis } from 'ioredis';
import { buildApp } from '../../src/app/app.js';
import type { Config } from '../../src/config.js';
import type { Season, SeasonDefinition } from '../../src/domain/season.js';
import { validateSeasonDefinition } from '../../src/domain/season.js';
import { createKafka, ensureTopicsExist } from '../../src/kafka/client.js';
import { createLogger } from '../../src/logger.js';
import { createPostgres } from '../../src/postgres/client.js';
import { createSeasonsRepo } from '../../src/postgres/seasons-repo.js';
import { createRedis } from '../../src/redis/client.js';
import { placeShards } from '../../src/redis/shard-placement.js';
import { boardVersionsKey } from '../../src/redis/keys.js';

export function openServices(config: Config) {
  const logger = createLogger(config.logLevel);
  const pg = createPostgres(config.databaseUrl, 4);
  const redis = createRedis(config.redisUrl, logger);
  const kafka = createKafka({ brokers: config.kafka.brokers, clientId: 'ladder-test', logger });
  const seasons = createSeasonsRepo(pg.db, (id, count) => placeShards(redis, id, count));
  return {
    config,
    logger,
    pg,
    redis,
    kafka,
    seasons,
    async close() {
      redis.disconnect();
      await pg.close();
    },
  };
}

export type Services = ReturnType<typeof openServices>;

const DAY = 24 * 3600 * 1000;

/** Creates a season that started `daysAgo` days before `now` and runs 30 more days. */
export async function createSeason(
  s: Services,
  def: Partial<SeasonDefinition> & { daysAgo?: number; now?: number } = {},
): Promise<Season> {
  const now = def.now ?? Date.now();
  const startsAt = new Date(Math.floor((now - (def.daysAgo ?? 10) * DAY) / 1000) * 1000);
  const full: SeasonDefinition = {
    name: 'test season',
    startsAt,
    endsAt: new Date(startsAt.getTime() + 40 * DAY),
    scoring: 'BEST',
    order: 'DESC',
    rankStyle: 'ORDINAL',
    maxPointsPerMatch: 1_000_000,
    ...def,
  };
  return s.seasons.insert(full, validateSeasonDefinition(full), 'ACTIVE');
}

/** The test's services plus a real ingest consumer (buildApp, role ingest) on its own topic and group. */
export async function startIngest(config: Config) {
  const s = openServices(config);
  await createTopics(s.kafka, config);
  const app = buildApp(config, { roles: ['ingest'], logger: s.logger });
  await app.start();
  return {
    s,
    app,
    async close() {
      await app.stop();
      await s.close();
    },
  };
}

/** Creates the test topic pair. */
export async function createTopics(kafka: Kafka, config: Config): Promise<void> {
  await ensureTopicsExist(kafka, config.kafka);
}

/** Produces raw messages (key, value; a partition, or the key's) as a game-server API would, acks=all. */
export async function produceRaw(
  kafka: Kafka,
  topic: string,
  messages: Array<{ key: string; value: string; partition?: number }>,
): Promise<void> {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  try {
    for (let i = 0; i < messages.length; i += 2_000) {
      await producer.send({ topic, acks: -1, messages: messages.slice(i, i + 2_000) });
    }
  } finally {
    await producer.disconnect();
  }
}

/** Polls until `check` returns true; fails with `what` after `timeoutMs`. */
export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The group's committed offset and the log end of every partition of `topic`. */
export async function groupProgress(admin: Admin, groupId: string, topic: string) {
  const [ends, committed] = await Promise.all([
    admin.fetchTopicOffsets(topic),
    admin.fetchOffsets({ groupId, topics: [topic] }),
  ]);
  const committedBy = new Map(committed[0]!.partitions.map((p) => [p.partition, Number(p.offset)]));
  return ends.map((e) => ({
    partition: e.partition,
    end: Number(e.high),
    committed: committedBy.get(e.partition) ?? -1,
  }));
}

/** True when the group committed every message of the topic. */
export async function caughtUp(admin: Admin, groupId: string, topic: string): Promise<boolean> {
  const progress = await groupProgress(admin, groupId, topic);
  return progress.every((p) => (p.end === 0 ? p.committed <= 0 : p.committed === p.end));
}

/** Waits until the config's consumer group committed every message of its topic. */
export async function waitUntilCaughtUp(s: Services, what: string, timeoutMs = 30_000): Promise<void> {
  const admin = s.kafka.admin();
  await admin.connect();
  try {
    await waitFor(what, () => caughtUp(admin, s.config.kafka.groupId, s.config.kafka.topic), timeoutMs);
  } finally {
    await admin.disconnect();
  }
}

/** ZRANGE 0 -1 WITHSCORES of a key, as [member, score] pairs. */
/** The season's board keys in Redis (its versions hash left out), sorted. */
export async function boardKeys(redis: Redis, seasonId: number): Promise<string[]> {
  const keys = await redis.keys(`lb:{s${seasonId}}*`);
  return keys.filter((k) => k !== boardVersionsKey(seasonId)).sort();
}

export async function boardContents(redis: Redis, key: string): Promise<Array<[string, string]>> {
  const flat = await redis.zrange(key, 0, -1, 'WITHSCORES');
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i]!, flat[i + 1]!]);
  return pairs;
}

/** Reads a topic from the beginning with a throwaway consumer group: `count` messages, and any more up to its end. */
export async function readTopic(kafka: Kafka, topic: string, count: number) {
  const consumer = kafka.consumer({ groupId: `${topic}-reader-${Date.now()}` });
  const out: Array<{ key: string; value: string; headers: Record<string, string> }> = [];
  const next = new Map<number, number>(); // partition → the offset after the last one read
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)]));
      out.push({ key: message.key!.toString(), value: message.value!.toString(), headers });
      next.set(partition, Number(message.offset) + 1);
    },
  });
  const admin = kafka.admin();
  await admin.connect();
  try {
    await waitFor(`${count} messages on ${topic}`, async () => out.length >= count);
    // And no more than that: read on to the end of every partition as it is now.
    const ends = await admin.fetchTopicOffsets(topic);
    await waitFor(`the end of ${topic}`, async () =>
      ends.every((e) => (next.get(e.partition) ?? Number(e.low)) >= Number(e.high)),
    );
  } finally {
    await Promise.all([consumer.disconnect(), admin.disconnect()]);
  }
  return out;
}
