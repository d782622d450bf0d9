import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app/app.js';
import type { Season } from '../../src/domain/season.js';
import type { MatchResultMessage } from '../../src/domain/result-message.js';
import { expectBoardsMatchOracle, expectStoredOnce } from '../support/assert-boards.js';
import { TEST_DATABASE_URL, TEST_REDIS_URL, testConfig } from '../support/env.js';
import { generateResults, toRecords } from '../support/generate.js';
import {
  caughtUp,
  createSeason,
  createTopics,
  groupProgress,
  openServices,
  produceRaw,
  waitFor,
  type Services,
} from '../support/services.js';
import { startTcpProxy } from '../support/tcp-proxy.js';

const pgUrl = new URL(TEST_DATABASE_URL);
const redisUrl = new URL(TEST_REDIS_URL);
let pgProxy: Awaited<ReturnType<typeof startTcpProxy>>;
let redisProxy: Awaited<ReturnType<typeof startTcpProxy>>;
let s: Services;
let app: App;
let config: ReturnType<typeof testConfig>;

beforeAll(async () => {
  pgProxy = await startTcpProxy(pgUrl.hostname, Number(pgUrl.port || 5432));
  redisProxy = await startTcpProxy(redisUrl.hostname, Number(redisUrl.port || 6379));
  const viaPg = new URL(TEST_DATABASE_URL);
  viaPg.port = String(pgProxy.port);
  const viaRedis = new URL(TEST_REDIS_URL);
  viaRedis.port = String(redisProxy.port);
  config = testConfig({ DATABASE_URL: viaPg.toString(), REDIS_URL: viaRedis.toString() });
  s = openServices(testConfig()); // direct connections, for the test's own checks
  await createTopics(s.kafka, config);
  app = buildApp(config, { roles: ['ingest'], logger: s.logger });
  await app.start();
});

afterAll(async () => {
  await app?.stop();
  await s?.close();
  await pgProxy?.close();
  await redisProxy?.close();
});

describe('an outage of PostgreSQL or Redis', () => {
  it('pauses ingest without committing or dead-lettering anything, and resumes exactly where it stopped', async () => {
    const season = await createSeason(s, { name: 'outage', scoring: 'SUM' });
    const all = generateResults(season, { results: 3_000, players: 500, seed: 77 });
    const admin = s.kafka.admin();
    await admin.connect();
    const applied: MatchResultMessage[] = [];
    const deliver = async (part: MatchResultMessage[]) => {
      await produceRaw(s.kafka, config.kafka.topic, toRecords(part));
      applied.push(...part);
    };
    try {
      await deliver(all.slice(0, 1_000));
      await waitFor('the first results to be committed', () =>
        caughtUp(admin, config.kafka.groupId, config.kafka.topic),
      );

      for (const [name, proxy, part] of [
        ['Redis', redisProxy, all.slice(1_000, 2_000)],
        ['PostgreSQL', pgProxy, all.slice(2_000)],
      ] as const) {
        const committedBefore = await groupProgress(admin, config.kafka.groupId, config.kafka.topic);
        proxy.cut();
        await deliver([...part]);
        await new Promise((r) => setTimeout(r, 3_000));
        const during = await groupProgress(admin, config.kafka.groupId, config.kafka.topic);
        expect(
          during.map((p) => p.committed),
          `${name} down: nothing committed`,
        ).toEqual(committedBefore.map((p) => p.committed));
        expect(
          during.some((p) => p.end > p.committed),
          `${name} down: messages are waiting`,
        ).toBe(true);
        proxy.restore();
        await waitFor(
          `ingest to resume after ${name} returns`,
          () => caughtUp(admin, config.kafka.groupId, config.kafka.topic),
          60_000,
        );
      }
      const dlq = await admin.fetchTopicOffsets(config.kafka.dlqTopic);
      expect(dlq.map((p) => Number(p.high))).toEqual([0]);
    } finally {
      await admin.disconnect();
    }
    await expectStoredOnce(s, season.id, 3_000);
    await expectBoardsMatchOracle(
      s,
      season as Season,
      applied.map((m) => ({ ...m, endedAt: new Date(m.endedAt) })),
    );
  });
});
