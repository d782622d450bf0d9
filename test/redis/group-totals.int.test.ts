// A clan's total on its group board (docs/design.md#group-boards) against the real Redis: ingest's
// applyStandings-5.lua moves it by what ZADD GT CH changed, the other writers recompute it
// (groupTotal-2.lua). Through a seeded random mix of raises, lower scores, replays, new members,
// a lost total and recomputes, the total always equals the sum of points on the clan's scope board.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BoardStanding } from '../../src/domain/board-deltas.js';
import { codecOf } from '../../src/domain/score-codec.js';
import { seasonBoard } from '../../src/domain/board.js';
import { createBoardWriter } from '../../src/redis/board-writer.js';
import { refreshGroupTotals } from '../../src/redis/group-totals.js';
import { boardKey, groupsKey } from '../../src/redis/keys.js';
import { testConfig } from '../support/env.js';
import { createSeason, openServices, type Services } from '../support/services.js';

let s: Services;
beforeAll(() => {
  s = openServices(testConfig());
});
afterAll(async () => {
  await s?.close();
});

/** A deterministic generator (mulberry32): the same steps every run. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('group totals kept by ingest', () => {
  it.each([0, 3])(
    'equal the sum over the clan’s board through raises, replays and lost totals (best of %i)',
    async (bestOf) => {
      const season = await createSeason(s, {
        name: 'group totals',
        maxPointsPerMatch: 100_000,
        groupBestOf: bestOf || undefined,
      });
      const writer = createBoardWriter(s.redis, 90 * 24 * 3600);
      const board = seasonBoard(season);
      const codec = codecOf(season);
      const step = Number(codec.toRedis(codec.maxTime + 1));
      const clans = ['wolves', 'owls'];
      const next = random(32 + bestOf);
      const sent: BoardStanding[] = [];

      async function expected(clan: string): Promise<number | null> {
        const flat = await s.redis.zrevrange(
          boardKey({ ...board, scope: `g:${clan}` }),
          0,
          bestOf > 0 ? bestOf - 1 : -1,
          'WITHSCORES',
        );
        if (flat.length === 0) return null;
        let total = 0;
        for (let i = 1; i < flat.length; i += 2) total += Math.floor(Number(flat[i]) / step);
        return total;
      }

      for (let round = 0; round < 60; round++) {
        const roll = next();
        if (roll < 0.1) {
          await s.redis.zrem(groupsKey(board), clans[Math.floor(next() * 2)]!); // a total lost
        } else if (roll < 0.15) {
          await refreshGroupTotals(
            s.redis,
            clans.map((c) => ({ board: { ...board, scope: `g:${c}` }, expireAt: 0 })),
          );
        } else {
          // A chunk: new standings, some lower than before (ZADD GT keeps the higher), some replays.
          const chunk: BoardStanding[] = [];
          for (let k = 0; k < 1 + Math.floor(next() * 8); k++) {
            const replay = sent.length > 0 && next() < 0.3;
            const row: BoardStanding = replay
              ? sent[Math.floor(next() * sent.length)]!
              : {
                  seasonId: season.id,
                  window: 'SEASON',
                  period: '',
                  playerId: String(1 + Math.floor(next() * 12)),
                  points: Math.floor(next() * 100_000),
                  achievedAt: new Date(season.startsAt.getTime() + Math.floor(next() * 1e9)),
                };
            sent.push(row);
            const clan = clans[Number(row.playerId) % 2]!;
            chunk.push(row, { ...row, scope: `g:${clan}` });
          }
          await writer.write(chunk, () => season, Date.now());
        }
        for (const clan of clans) {
          const total = await s.redis.zscore(groupsKey(board), clan);
          const want = await expected(clan);
          // A total lost and not written since is absent; any written total is exact.
          if (total !== null) expect([round, clan, Number(total)]).toEqual([round, clan, want]);
        }
      }
      // After a last write to each clan, both totals are there and exact.
      const last = clans.map((clan, i) => ({
        seasonId: season.id,
        window: 'SEASON' as const,
        period: '',
        playerId: String(100 + i),
        points: 1,
        achievedAt: new Date(),
        scope: `g:${clan}`,
      }));
      await writer.write(last, () => season, Date.now());
      for (const clan of clans) expect(Number(await s.redis.zscore(groupsKey(board), clan))).toBe(await expected(clan));
    },
  );
});
