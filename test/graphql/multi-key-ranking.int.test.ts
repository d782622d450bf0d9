// Multi-key ranking, exact (issue 31, item 4): random boards of 2..4 keys, each with its own
// direction, in both rank styles, BEST (sharded or not) or LAST, fed random tie-heavy matches
// through the real API, Kafka, PostgreSQL and Redis; top, entry, around, friends and percentile
// must equal an independent sort of the raw stats: the best tuple of each player (lexicographic,
// each key its own order; the earliest among equal tuples; LAST: among the player's matches of
// their latest second only), then who reached it first, then Redis's member order (player id
// bytes descending: docs/design.md#ranks-and-tie-breaks).
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_KEY_BITS } from '../../src/domain/board-keys.js';
import { minutesFromNow, startApi, type TestApi } from '../support/api.js';
import { waitFor } from '../support/services.js';

let api: TestApi;
let admin: string;
let submitter: string;

beforeAll(async () => {
  api = await startApi();
  [admin, submitter] = [await api.key('admin'), await api.key('submit')];
});
afterAll(async () => {
  await api?.close();
});

interface Key {
  stat: string;
  order: 'ASC' | 'DESC';
  max: number;
  aggregate: 'BEST' | 'SUM';
}
interface Played {
  playerId: string;
  values: number[];
  endedAt: number;
}

const keysArb = fc
  .array(
    fc.record({
      order: fc.constantFrom<'ASC' | 'DESC'>('ASC', 'DESC'),
      max: fc.constantFrom(1, 3, 7, 100, 4095),
      // SUM on DESC keys only (refused on ASC); small maxes see totals held at max.
      aggregate: fc.constantFrom<'BEST' | 'SUM'>('BEST', 'SUM'),
    }),
    { minLength: 2, maxLength: 4 },
  )
  // At most 31 bits together (MAX_KEY_BITS): wider keys are refused at creation.
  .filter((ks) => ks.reduce((bits, k) => bits + k.max.toString(2).length, 0) <= MAX_KEY_BITS)
  .map((ks) => ks.map((k, i): Key => ({ stat: `k${i}`, ...k, aggregate: k.order === 'DESC' ? k.aggregate : 'BEST' })));

const caseArb = keysArb.chain((keys) =>
  fc.record({
    keys: fc.constant(keys),
    rankStyle: fc.constantFrom('ORDINAL', 'COMPETITION'),
    // A LAST board cannot be sharded (its scores may go down).
    scoring: fc.constantFrom('BEST', 'LAST'),
    sharded: fc.boolean(),
    // Few players, few instants and small values: equal tuples and equal times are everywhere.
    matches: fc.array(
      fc.record({
        at: fc.integer({ min: 0, max: 5 }),
        players: fc.uniqueArray(fc.integer({ min: 0, max: 24 }), { minLength: 1, maxLength: 6 }),
        values: fc.array(fc.tuple(...keys.map((k) => fc.integer({ min: 0, max: Math.min(k.max, 3) }))), {
          minLength: 6,
          maxLength: 6,
        }),
      }),
      { minLength: 1, maxLength: 12 },
    ),
  }),
);

// Ids of 1, 10 and 19 digits: byte order differs from numeric order.
const idOf = (n: number) =>
  n % 3 === 0
    ? String(n + 1)
    : n % 3 === 1
      ? String(9_000_000_000 + n)
      : String(9_100_000_000_000_000_000n + BigInt(n));

/** < 0 when tuple a is better than b: lexicographic, each key its own direction. */
function compareTuples(keys: readonly Key[], a: readonly number[], b: readonly number[]): number {
  for (const [i, k] of keys.entries()) if (a[i] !== b[i]) return k.order === 'DESC' ? b[i]! - a[i]! : a[i]! - b[i]!;
  return 0;
}

/**
 * A player's standing when keys aggregate on their own: each SUM key the total (held at its max),
 * reached at the latest positive result (a zero total: the first); each BEST key the best value,
 * reached at the earliest result holding it; the tuple reached when its last key was, not
 * counting SUM keys at their max (all of them at max: at the first result).
 */
function perKey(keys: readonly Key[], mine: readonly Played[]): Played {
  const times = mine.map((p) => p.endedAt);
  const values: number[] = [];
  const reached: number[] = [];
  keys.forEach((k, i) => {
    const vs = mine.map((p) => p.values[i]!);
    if (k.aggregate === 'SUM') {
      const total = vs.reduce((a, v) => a + v, 0);
      values.push(Math.min(total, k.max));
      // A total at its max is full: its time does not count.
      if (total < k.max)
        reached.push(
          total > 0 ? Math.max(...mine.filter((p) => p.values[i]! > 0).map((p) => p.endedAt)) : Math.min(...times),
        );
    } else {
      const b = k.order === 'DESC' ? Math.max(...vs) : Math.min(...vs);
      values.push(b);
      reached.push(Math.min(...mine.filter((p) => p.values[i] === b).map((p) => p.endedAt)));
    }
  });
  // Every key full: reached at the first result.
  return {
    playerId: mine[0]!.playerId,
    values,
    endedAt: reached.length > 0 ? Math.max(...reached) : Math.min(...times),
  };
}

/** The board as the rules state it: each player's best tuple (LAST: of their latest second), ordered, with ranks. */
function oracle(keys: readonly Key[], rankStyle: string, scoring: string, played: readonly Played[]) {
  const second = (p: Played) => Math.floor(p.endedAt / 1000);
  const latest = new Map<string, number>();
  for (const p of played) latest.set(p.playerId, Math.max(latest.get(p.playerId) ?? -Infinity, second(p)));
  const counted = scoring === 'LAST' ? played.filter((p) => second(p) === latest.get(p.playerId)) : played;
  const best = new Map<string, Played>();
  if (keys.some((k) => k.aggregate === 'SUM')) {
    for (const id of new Set(counted.map((p) => p.playerId)))
      best.set(
        id,
        perKey(
          keys,
          counted.filter((p) => p.playerId === id),
        ),
      );
  } else
    for (const p of counted) {
      const cur = best.get(p.playerId);
      const c = cur && compareTuples(keys, p.values, cur.values);
      if (!cur || c! < 0 || (c === 0 && p.endedAt < cur.endedAt)) best.set(p.playerId, p);
    }
  const sorted = [...best.values()].sort(
    (a, b) =>
      compareTuples(keys, a.values, b.values) ||
      Math.floor(a.endedAt / 1000) - Math.floor(b.endedAt / 1000) ||
      (a.playerId < b.playerId ? 1 : a.playerId > b.playerId ? -1 : 0),
  );
  return sorted.map((p, i) => ({
    rank: rankStyle === 'ORDINAL' ? i + 1 : 1 + sorted.findIndex((q) => compareTuples(keys, q.values, p.values) === 0),
    playerId: p.playerId,
    keys: p.values,
  }));
}

const READ = `query($s: Int!, $p: ID!, $f: [ID!]!) { leaderboard(seasonId: $s, board: "ranked") {
  size
  top(limit: 100) { rank playerId keys percentile }
  entry(playerId: $p) { rank playerId keys percentile }
  around(playerId: $p, radius: 2) { rank playerId keys }
  friends(playerIds: $f) { rank playerId keys }
} }`;

describe('a multi-key board', () => {
  it('ranks exactly like an independent sort of the tuples: top, entry, around, friends, percentile', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async ({ keys: drawn, rankStyle, scoring, matches, sharded: shard }) => {
        let keys = drawn;
        const sharded = shard && scoring === 'BEST';
        // A LAST board ranks its latest match's tuple: its keys do not SUM.
        if (scoring === 'LAST') keys = keys.map((k) => ({ ...k, aggregate: 'BEST' }));
        // Whole seconds: the codec counts time units from the start, the oracle from the epoch.
        const startsAt = Math.floor((Date.now() - 86_400_000) / 1000) * 1000;
        // Bounds in the packed space: a quarter and a half of the largest value.
        const bits = keys.reduce((s, k) => s + k.max.toString(2).length, 0);
        const shardBounds = sharded ? [2 ** (bits - 2), 2 ** (bits - 1)] : undefined;
        const made = await api.gql(
          'mutation($input: CreateSeasonInput!) { createSeason(input: $input) { id } }',
          {
            input: {
              name: 'multi-key',
              startsAt: new Date(startsAt),
              endsAt: minutesFromNow(24 * 60),
              // A first board of its own, so that the ranked one is a further board.
              boards: [
                { name: 'points', maxValue: 10 },
                { name: 'ranked', keys, rankStyle, scoring, shardBounds },
              ],
            },
          },
          admin,
        );
        expect(made.errors).toBeUndefined();
        const seasonId = made.data!['createSeason'].id as number;
        const played: Played[] = [];
        for (const [m, match] of matches.entries()) {
          const endedAt = startsAt + 60_000 + match.at * 1000 + m * 7;
          const results = match.players.map((n, i) => {
            const values = match.values[i]!;
            played.push({ playerId: idOf(n), values, endedAt });
            return { playerId: idOf(n), stats: keys.map((k, j) => ({ name: k.stat, value: values[j]! })) };
          });
          const res = await api.gql(
            'mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { accepted } }',
            { input: { matchId: randomUUID(), seasonId, endedAt: new Date(endedAt), results } },
            submitter,
          );
          expect(res.errors).toBeUndefined();
        }
        const expected = oracle(keys, rankStyle, scoring, played);
        const [row] = await api.s.pg.sql<Array<{ id: number }>>`
          select id from seasons where parent_id = ${seasonId} and board = 'ranked'`;
        await waitFor('every result applied', async () => {
          const [n] = await api.s.pg.sql<Array<{ n: number }>>`
            select count(*)::int as n from match_results where season_id = ${row!.id}`;
          return n!.n === played.length;
        });
        // Applied to PostgreSQL first, then Redis: wait for the board to hold every player.
        const read = async (p: string, friends: string[]) => {
          const res = await api.gql(READ, { s: seasonId, p, f: friends });
          expect(res.errors).toBeUndefined();
          return res.data!['leaderboard'];
        };
        await waitFor('every player on the board', async () => (await read('1', [])).size === expected.length);
        const size = expected.length;
        const withPercentile = expected.map((e) => ({ ...e, percentile: (100 * e.rank) / size }));
        const ids = [...new Set(played.map((p) => p.playerId))];
        for (const p of ids.slice(0, 4)) {
          const friends = [...ids.slice(-5), idOf(99)];
          const board = await read(p, friends);
          expect(board.top).toEqual(withPercentile);
          const at = expected.findIndex((e) => e.playerId === p);
          expect(board.entry).toEqual(withPercentile[at]);
          const from = Math.max(0, Math.min(at - 2, size - 5));
          expect(board.around).toEqual(expected.slice(from, from + 5));
          expect(board.friends).toEqual(expected.filter((e) => friends.includes(e.playerId)));
        }
      }),
      // A failure reports its case at once: shrinking re-runs whole seasons through Kafka.
      { numRuns: 16, endOnFailure: true },
    );
  }, 120_000);
});
