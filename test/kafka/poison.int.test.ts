import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../src/domain/errors.js';
import { expectBoardsMatchOracle, expectStoredOnce } from '../support/assert-boards.js';
import { testConfig } from '../support/env.js';
import { generateResults, prng, shuffle, toRecords } from '../support/generate.js';
import {
  readTopic,
  createSeason,
  produceRaw,
  waitUntilCaughtUp,
  startIngest,
  type Services,
} from '../support/services.js';

const config = testConfig();
let s: Services;
let ingest: Awaited<ReturnType<typeof startIngest>>;

beforeAll(async () => {
  ingest = await startIngest(config);
  s = ingest.s;
});

afterAll(async () => {
  await ingest?.close();
});

describe('poison messages', () => {
  it('go to the DLQ with their reason and source, 50 of every kind among good ones, and every good one is applied', async () => {
    const season = await createSeason(s, { name: 'poison', maxPointsPerMatch: 100 });
    const good = generateResults(season, { results: 1_000, players: 200, seed: 3, maxPoints: 100 });
    const valid = { ...good[0]!, matchId: 'b7c0e1a2-0000-4000-8000-00000000000a' };
    const before = new Date(season.startsAt.getTime() - 1000).toISOString();
    const after = new Date(season.endsAt.getTime()).toISOString();
    const kinds: Array<[string, string, ErrorCode, string]> = [
      ['not json', '{"v":1,', 'BAD_USER_INPUT', 'value'],
      ['points as a string', JSON.stringify({ ...valid, points: '10' }), 'BAD_USER_INPUT', 'points'],
      ['unknown version', JSON.stringify({ ...valid, v: 2 }), 'BAD_USER_INPUT', 'v'],
      ['unknown season', JSON.stringify({ ...valid, seasonId: 2_000_000_000 }), 'SEASON_NOT_FOUND', 'seasonId'],
      ['points above the bound', JSON.stringify({ ...valid, points: 101 }), 'POINTS_OUT_OF_RANGE', 'points'],
      ['negative points', JSON.stringify({ ...valid, points: -1 }), 'POINTS_OUT_OF_RANGE', 'points'],
      ['ended before the season', JSON.stringify({ ...valid, endedAt: before }), 'TIME_OUT_OF_RANGE', 'endedAt'],
      ['ended after the season', JSON.stringify({ ...valid, endedAt: after }), 'TIME_OUT_OF_RANGE', 'endedAt'],
      ['player id zero', JSON.stringify({ ...valid, playerId: '0' }), 'BAD_USER_INPUT', 'playerId'],
      ['match id not a UUID', JSON.stringify({ ...valid, matchId: 'match-1' }), 'BAD_USER_INPUT', 'matchId'],
    ];
    const poison = Array.from({ length: 50 }, (_, i) => {
      const [, value, code, field] = kinds[i % kinds.length]!;
      return { key: `poison-${i}`, value, code, field };
    });
    const records = shuffle([...toRecords(good), ...poison.map(({ key, value }) => ({ key, value }))], prng(9));
    await produceRaw(s.kafka, config.kafka.topic, records);

    await waitUntilCaughtUp(s, 'the consumer to commit every message');

    const dead = await readTopic(s.kafka, config.kafka.dlqTopic, 50);
    expect(dead).toHaveLength(50);
    const byKey = new Map(dead.map((m) => [m.key, m]));
    for (const p of poison) {
      const m = byKey.get(p.key);
      expect(m, p.key).toBeDefined();
      expect({
        value: m!.value,
        code: m!.headers['x-error-code'],
        field: m!.headers['x-error-field'],
        topic: m!.headers['x-source-topic'],
      }).toEqual({ value: p.value, code: p.code, field: p.field, topic: config.kafka.topic });
      expect(m!.headers['x-source-offset']).toMatch(/^\d+$/);
      expect(m!.headers['x-source-partition']).toMatch(/^\d+$/);
    }
    await expectStoredOnce(s, season.id, 1_000);
    await expectBoardsMatchOracle(
      s,
      season,
      good.map((m) => ({ ...m, endedAt: new Date(m.endedAt) })),
    );
  });
});
