// Per-key aggregates in PostgreSQL (docs/design.md#per-key-aggregates): the SQL of
// postgres/per-key-rules.ts against the domain's fold (key-aggregates.ts foldKeys, table- and
// property-tested on its own), on the real database: every standing of every window after chunks
// applied with crashes, replays and shuffles; Redis's boards equal to PostgreSQL's; and a removal
// that leaves exactly the fold of the kept results.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AcceptedResult } from '../../src/domain/board-deltas.js';
import { boardsOf } from '../../src/domain/board-deltas.js';
import { packedMax, packKeys, unpackKeys } from '../../src/domain/board-keys.js';
import { foldKeys, packState, type KeyState } from '../../src/domain/key-aggregates.js';
import type { MatchResultMessage } from '../../src/domain/result-message.js';
import { codecOf } from '../../src/domain/score-codec.js';
import type { BoardKey } from '../../src/domain/season.js';
import { createPlayerResultsStore } from '../../src/postgres/player-results-store.js';
import { createResultsStore } from '../../src/postgres/results-store.js';
import { createBoardWriter } from '../../src/redis/board-writer.js';
import { boardKey } from '../../src/redis/keys.js';
import { applyResults } from '../../src/service/apply-results.js';
import { testConfig } from '../support/env.js';
import { generateResults, prng, shuffle } from '../support/generate.js';
import { createSeason, openServices, type Services } from '../support/services.js';

let s: Services;
beforeAll(() => {
  s = openServices(testConfig());
});
afterAll(async () => {
  await s?.close();
});

// wins SUM (max 7: totals past it are held at 7), kills BEST, lap MIN (BEST ASC).
const keys: BoardKey[] = [
  { stat: 'wins', order: 'DESC', max: 7, aggregate: 'SUM' },
  { stat: 'kills', order: 'DESC', max: 20 },
  { stat: 'lap', order: 'ASC', max: 300 },
];

const accepted = (ms: readonly MatchResultMessage[]): AcceptedResult[] =>
  ms.map((m, i) => ({ ...m, endedAt: new Date(m.endedAt), partition: 0, offset: String(i) }));

type Row = {
  window: string;
  period: string;
  player_id: string;
  points: string;
  achieved_ms: string;
  key_state: string[];
};

describe('a board whose keys aggregate, in PostgreSQL and Redis', () => {
  it('holds the domain fold of every result on every window, through crashes, replays and a removal', async () => {
    const bits = packedMax(keys).toString(2).length;
    const season = await createSeason(s, {
      name: 'per-key',
      keys,
      maxPointsPerMatch: packedMax(keys),
      split: { pointsBits: bits, timeBits: 53 - bits, timeUnitSeconds: 1 },
    });
    const rand = prng(31);
    // Small values: many zero wins, equal kills and laps, totals past 7.
    const input = generateResults(season, { results: 2_000, players: 60, seed: 17 }).map((m) => ({
      ...m,
      points: packKeys(keys, (stat) =>
        stat === 'wins'
          ? Math.floor(rand() * 3)
          : stat === 'kills'
            ? Math.floor(rand() * 5)
            : 100 + Math.floor(rand() * 4),
      )!,
    }));
    const store = createResultsStore(s.pg.sql);
    const deps = { store, boards: createBoardWriter(s.redis, 90 * 86_400), seasonOf: () => season, now: Date.now };
    const chunks = Array.from({ length: 8 }, (_, i) => input.slice(i * 250, (i + 1) * 250));
    for (const [i, chunk] of chunks.entries()) {
      if (i === 3 || i === 5)
        await store.applyBatch(accepted(chunk), () => season); // a crash before Redis
      else await applyResults(deps, accepted(shuffle([...chunk], rand)));
    }
    await applyResults(deps, accepted(shuffle([...chunks[3]!, ...chunks[5]!, ...chunks[6]!.slice(0, 50)], rand)));

    const expected = (results: readonly MatchResultMessage[]) => {
      const states = new Map<string, KeyState>();
      for (const r of results) {
        const endedAt = new Date(r.endedAt);
        for (const b of boardsOf({ seasonId: season.id, playerId: r.playerId, endedAt }, season)) {
          const key = `${b.window}|${b.period}|${r.playerId}`;
          states.set(key, foldKeys(keys, states.get(key), unpackKeys(keys, r.points), endedAt.getTime()));
        }
      }
      return new Map(
        [...states].map(([key, st]) => {
          const { points, achievedAt } = packState(keys, st);
          return [
            key,
            { points, achievedMs: achievedAt.getTime(), state: [...st.values, ...st.reached, st.latest, st.first] },
          ];
        }),
      );
    };
    const stored = async () => {
      const rows = await s.pg.sql<Row[]>`
        select "window", period, player_id::text, points::text, floor(extract(epoch from achieved_at) * 1000)::int8::text as achieved_ms,
               key_state::text[] as key_state
        from standings where season_id = ${season.id}`;
      return new Map(
        rows.map((r) => [
          `${r.window}|${r.period}|${r.player_id}`,
          { points: Number(r.points), achievedMs: Number(r.achieved_ms), state: r.key_state.map(Number) },
        ]),
      );
    };
    const want = expected(input);
    expect(want.size).toBeGreaterThan(180);
    expect(await stored()).toEqual(want);
    // Some totals went past wins' max and are ranked at it.
    expect([...want.values()].some((w) => w.state[0]! > 7)).toBe(true);

    // Redis's SEASON board is PostgreSQL's, score for score.
    const codec = codecOf(season);
    const seasonBoard = [...want].filter(([k]) => k.startsWith('SEASON|'));
    const board = await s.redis.zrange(boardKey({ season, window: 'SEASON', period: '' }), 0, -1, 'WITHSCORES');
    const held = new Map<string, string>();
    for (let i = 0; i < board.length; i += 2) held.set(board[i]!, board[i + 1]!);
    expect(held).toEqual(
      new Map(
        seasonBoard.map(([k, w]) => [k.split('|')[2]!, codec.toRedis(codec.encode(w.points, new Date(w.achievedMs)))]),
      ),
    );

    // A removal of one player's results but their first two: exactly the fold of what is kept.
    const player = input[0]!.playerId;
    const mine = input.filter((r) => r.playerId === player);
    const kept = mine.slice(0, 2);
    await createPlayerResultsStore(s.pg.sql).remove({
      season,
      playerId: player,
      selection: { kind: 'allBut', matchIds: kept.map((r) => r.matchId) },
      blockReason: null,
      audit: { actor: 'test', action: 'remove_results', reason: 'per-key removal' },
      auditWhenEmpty: false,
    });
    const after = expected([...input.filter((r) => r.playerId !== player), ...kept]);
    expect(await stored()).toEqual(after);
  });
});
