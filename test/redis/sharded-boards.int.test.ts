import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AcceptedResult } from '../../src/domain/board-deltas.js';
import { type Board, boardExpireAt, seasonBoard } from '../../src/domain/board.js';
import type { RankedStanding } from '../../src/domain/ranking.js';
import { codecOf } from '../../src/domain/score-codec.js';
import { validateSeasonDefinition, type Season, type SeasonDefinition } from '../../src/domain/season.js';
import type { MatchResultMessage } from '../../src/domain/result-message.js';
import { createPlayerResultsStore } from '../../src/postgres/player-results-store.js';
import { createResultsStore } from '../../src/postgres/results-store.js';
import { createSeasonLifecycleStore } from '../../src/postgres/season-lifecycle-store.js';
import { createStandingsPages } from '../../src/postgres/standings-pages.js';
import { createStandingsReader } from '../../src/postgres/standings-reader.js';
import { createBoardInspector } from '../../src/redis/board-inspector.js';
import { createBoardReader } from '../../src/redis/board-reader.js';
import type { BoardAnswer, BoardQuery } from '../../src/service/leaderboard-reads.js';
import { createBoardRebuilder } from '../../src/redis/board-rebuilder.js';
import { createBoardWriter } from '../../src/redis/board-writer.js';
import { mastersOf, scanKeys } from '../../src/redis/client.js';
import { createBoardResetter, type ExactStanding } from '../../src/redis/board-resetter.js';
import { createSeasonKeys } from '../../src/redis/season-keys.js';
import {
  boardLabel,
  moveEpochKey,
  rebuildCopyKey,
  shardBoardKey,
  shardKeysPattern,
  shardSizesKey,
} from '../../src/redis/keys.js';
import { masterSlotRanges, slotOfTag } from '../../src/redis/shard-placement.js';
import { heldScores, keptSizes, shardKeys } from '../../src/redis/sharded-boards.js';
import { setOnShards } from '../../src/redis/sharded-exact.js';
import { writeShardedBoard } from '../../src/redis/sharded-raise.js';
import { applyResults } from '../../src/service/apply-results.js';
import { closeSeason } from '../../src/service/close-season.js';
import { rebuildSeason } from '../../src/service/rebuild-season.js';
import { reconcileSeason } from '../../src/service/reconcile-season.js';
import { removePlayerResults, settlePlayerRemoval } from '../../src/service/remove-player-results.js';
import { testConfig } from '../support/env.js';
import { generateResults, prng, shuffle, withReplays } from '../support/generate.js';
import { ensureRedisCluster } from '../support/redis-cluster.js';
import { boardsOf, line } from '../support/season-boards.js';
import { openServices, waitFor, type Services } from '../support/services.js';

// The oracle test of score-range shards (issue 11, docs/scale-out.md): the same results go to a
// sharded season and to its twin on one ZSET per board, on the real Redis Cluster; after every
// chunk every read of every board must be the same on both: size, whole board page by page, pages
// straddling shard boundaries, every player's entry, around at every radius kind, friends.
const TTL = 90 * 24 * 3600;
const DAY = 24 * 3600 * 1000;
let s: Services;
beforeAll(async () => {
  const url = await ensureRedisCluster();
  s = openServices(testConfig({ REDIS_CLUSTER_NODES: url.replace('redis-cluster://', '') }));
  // A cluster just created (a fresh clone's) may still drop the client's first connections: the
  // cases start once every master answers through it.
  await waitFor('every master answers', async () => {
    try {
      await Promise.all((await mastersOf(s.redis)).map((node) => node.ping()));
      return true;
    } catch {
      return false;
    }
  });
});
afterAll(async () => {
  await s?.close();
});

async function twins(def: Partial<SeasonDefinition>, shardBounds: number[]): Promise<[Season, Season]> {
  const startsAt = new Date(Math.floor((Date.now() - 10 * DAY) / 1000) * 1000);
  const full: SeasonDefinition = {
    name: 'sharded oracle',
    startsAt,
    endsAt: new Date(startsAt.getTime() + 40 * DAY),
    scoring: 'BEST',
    order: 'DESC',
    rankStyle: 'ORDINAL',
    maxPointsPerMatch: 1_000_000,
    ...def,
  };
  const sharded = await s.seasons.insert(
    { ...full, shardBounds },
    validateSeasonDefinition({ ...full, shardBounds }),
    'ACTIVE',
  );
  const single = await s.seasons.insert(full, validateSeasonDefinition(full), 'ACTIVE');
  return [sharded, single];
}

// The twin's matches need ids of their own: (match_id, player_id) is the dedup key of every season.
const twinMatch = new Map<string, string>();
const accepted = (ms: readonly MatchResultMessage[], seasonId: number, twin = false): AcceptedResult[] =>
  ms.map((m, i) => {
    if (twin && !twinMatch.has(m.matchId)) twinMatch.set(m.matchId, randomUUID());
    const matchId = twin ? twinMatch.get(m.matchId)! : m.matchId;
    return { ...m, matchId, seasonId, endedAt: new Date(m.endedAt), partition: 0, offset: String(i) };
  });

const lines = (a: BoardAnswer) => ({
  size: a.size,
  top: a.top.map(line),
  pages: a.pages.map((p) => p.map(line)),
  entries: a.entries.map(line),
  arounds: a.arounds.map((p) => p.map(line)),
});

/** Every read of `board` and of its twin on one ZSET, compared. */
async function expectSameReads(sharded: Board, single: Board, players: readonly string[]): Promise<void> {
  const reader = createBoardReader(s.redis);
  const size = await reader.size(single);
  const whole: BoardQuery = {
    top: 7,
    pages: Array.from({ length: Math.ceil(size / 97) + 1 }, (_, i) => ({ offset: i * 97, limit: 97 })),
    playerIds: [...players, '999999'],
    arounds: [],
  };
  const [a, b] = await Promise.all([reader.read(sharded, whole), reader.read(single, whole)]);
  expect(lines(a)).toEqual(lines(b));
  // Without players to find, a sharded read takes the shards' sizes kept in the season's slot.
  const pagesOnly = { ...whole, playerIds: [] };
  const [e, f] = await Promise.all([reader.read(sharded, pagesOnly), reader.read(single, pagesOnly)]);
  expect(lines(e)).toEqual(lines(f));
  // Around at the edges and inside, radius 0, 3 and 50, and friends (with strangers), one read each.
  const rand = prng(size);
  const picks = shuffle([...players], rand).slice(0, 12);
  const around: BoardQuery = {
    top: 0,
    pages: [],
    playerIds: [],
    arounds: picks.flatMap((playerId) => [0, 3, 50].map((radius) => ({ playerId, radius }))),
  };
  const [c, d] = await Promise.all([reader.read(sharded, around), reader.read(single, around)]);
  expect(lines(c)).toEqual(lines(d));
  expect(await reader.entries(sharded, picks)).toEqual(await reader.entries(single, picks));
  expect(await reader.size(sharded)).toBe(size);
}

/**
 * No member on two shards, the shards hold exactly the twin's members, and the sizes kept in the
 * season's slot (what top and page reads use) are the shards' sizes.
 */
async function expectEachMemberOnce(sharded: Board, single: Board): Promise<void> {
  const keys = shardKeys(sharded as Board<Season & { shards: NonNullable<Season['shards']> }>);
  const members = (await Promise.all(keys.map((k) => s.redis.zrange(k, 0, -1)))).flat();
  const reader = createBoardReader(s.redis);
  const all = (await reader.top(single, 0, 1000)).map((e) => e.playerId);
  expect(new Set(members).size).toBe(members.length);
  expect(members.sort()).toEqual(all.sort());
  const kept = await s.redis.get(shardSizesKey(sharded.season.id, boardLabel(sharded)));
  expect(kept).toBe((await Promise.all(keys.map((k) => s.redis.zcard(k)))).join(','));
}

describe('sharded seasons: every read equals the one-ZSET oracle', () => {
  for (const [name, def, bounds] of [
    ['BEST DESC ORDINAL, 4 shards', {}, [12, 30, 45]],
    ['SUM DESC COMPETITION, 3 shards', { scoring: 'SUM', rankStyle: 'COMPETITION' }, [60, 180]],
    ['BEST ASC COMPETITION, 3 shards', { order: 'ASC', rankStyle: 'COMPETITION' }, [20, 40]],
  ] as Array<[string, Partial<SeasonDefinition>, number[]]>) {
    it(`${name}: a shuffled stream with replays and boundary crossings`, async () => {
      const [sharded, single] = await twins(def, bounds);
      // The shards of the season sit on distinct masters, the best on the first.
      const masters = await masterSlotRanges(s.redis);
      expect(await mastersOf(s.redis)).toHaveLength(3);
      const masterOf = (tag: string) =>
        masters.findIndex((r) => r.some(([a, b]) => slotOfTag(tag) >= a && slotOfTag(tag) <= b));
      const placed = sharded.shards!.tags.map(masterOf);
      expect(new Set(placed).size).toBe(Math.min(3, placed.length));
      expect(placed.at(-1)).toBe(0);

      // 150 players, 2,000 results: players climb through the ranges; every result sent 1-5 times.
      const input = generateResults(sharded, { results: 2_000, players: 150, seed: bounds[0]!, maxPoints: 60 });
      const stream = withReplays(input, 7);
      const store = createResultsStore(s.pg.sql);
      const writer = createBoardWriter(s.redis, TTL);
      const deps = (season: Season) => ({ store, boards: writer, seasonOf: () => season, now: Date.now });
      const players = [...new Set(input.map((m) => m.playerId))];
      const chunk = 1_000;
      for (let i = 0; i < stream.length; i += chunk) {
        const part = stream.slice(i, i + chunk);
        // The sharded season gets each chunk twice at once (a stale consumer racing the current one).
        await Promise.all([
          applyResults(deps(sharded), accepted(part, sharded.id)),
          applyResults(deps(sharded), accepted(shuffle([...part], prng(i)), sharded.id)),
          applyResults(deps(single), accepted(part, single.id, true)),
        ]);
        if (i % (chunk * 3) !== 0 && i + chunk < stream.length) continue;
        for (const b of await boardsOf(s, sharded)) {
          const twin = { ...b, season: single };
          await expectSameReads(b, twin, players);
          await expectEachMemberOnce(b, twin);
        }
      }
      // Players did cross: most of them sit above the first range, and the worst range is not empty.
      const reader = createBoardReader(s.redis);
      const board = seasonBoard(sharded as Season & { shards: NonNullable<Season['shards']> });
      const keys = shardKeys(board);
      const sizes = await Promise.all(keys.map((k) => s.redis.zcard(k)));
      expect(sizes.filter((n) => n > 0).length).toBeGreaterThan(1);
      // Every move opens and closes a move window: the epoch counts two per batch of moves.
      expect(Number(await s.redis.get(moveEpochKey(sharded.id)))).toBeGreaterThan(10);
      expect(await reader.size(board)).toBe(players.length);
    });
  }

  it('exact lowering and removal (a cheater removed, a repair) cross shards downward like the oracle; close removes every shard key', async () => {
    const [sharded, single] = await twins({ rankStyle: 'COMPETITION' }, [10, 30, 50]);
    const input = generateResults(sharded, { results: 600, players: 80, seed: 11, maxPoints: 60 });
    const store = createResultsStore(s.pg.sql);
    const writer = createBoardWriter(s.redis, TTL);
    await applyResults({ store, boards: writer, seasonOf: () => sharded, now: Date.now }, accepted(input, sharded.id));
    await applyResults(
      { store, boards: writer, seasonOf: () => single, now: Date.now },
      accepted(input, single.id, true),
    );
    const players = [...new Set(input.map((m) => m.playerId))];
    const rand = prng(5);
    // A third of the players lowered to a random score (often a worse shard), a few removed.
    const at = new Date(sharded.startsAt.getTime() + 3_600_000);
    const changes: ExactStanding[] = shuffle([...players], rand)
      .slice(0, 30)
      .map((playerId, i) => ({
        seasonId: sharded.id,
        window: 'SEASON',
        period: '',
        playerId,
        standing: i < 5 ? null : { points: Math.floor(rand() * 60), achievedAt: at },
      }));
    const resetter = createBoardResetter(s.redis, TTL);
    const a = await resetter.reset(sharded, changes, Date.now());
    const b = await resetter.reset(single, changes, Date.now());
    expect(a.changed).toBe(b.changed);
    const board: Board = { season: sharded, window: 'SEASON', period: '' };
    await expectSameReads(board, { ...board, season: single }, players);
    await expectEachMemberOnce(board, { ...board, season: single });
    // Replayed: nothing changes.
    expect((await resetter.reset(sharded, changes, Date.now())).changed).toBe(0);

    const keys = createSeasonKeys(s.redis);
    expect(await keys.remove(sharded.id)).toBeGreaterThan(4);
    expect(await keys.remaining(sharded.id)).toBe(false);
    const left: string[] = [];
    await scanKeys(s.redis, shardKeysPattern(sharded.id), async (k) => void left.push(...k));
    expect(left).toEqual([]);
  });

  it('a reader never sees a member twice or loses one while members cross boundaries', async () => {
    const [sharded] = await twins({}, [5, 15, 30, 45]);
    const input = generateResults(sharded, { results: 2_000, players: 300, seed: 3, maxPoints: 60 });
    const store = createResultsStore(s.pg.sql);
    const deps = { store, boards: createBoardWriter(s.redis, TTL), seasonOf: () => sharded, now: Date.now };
    const reader = createBoardReader(s.redis);
    const board: Board = { season: sharded, window: 'SEASON', period: '' };
    let done = false;
    const seen = new Set<string>();
    let reads = 0;
    const readLoop = (async () => {
      while (!done) {
        const a = await reader.read(board, { top: 1000, pages: [], playerIds: [], arounds: [] });
        const ids = a.top.map((e: RankedStanding) => e.playerId);
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids.length).toBe(a.size);
        // Ingest never removes a player: whoever was seen once is seen in every later read.
        for (const id of seen) expect(ids).toContain(id);
        for (const id of ids) seen.add(id);
        expect(a.top.map((e) => e.rank)).toEqual(ids.map((_, i) => i + 1));
        reads++;
      }
    })();
    for (let i = 0; i < input.length; i += 200) await applyResults(deps, accepted(input.slice(i, i + 200), sharded.id));
    done = true;
    await readLoop;
    expect(reads).toBeGreaterThan(0);
    expect(seen.size).toBe(new Set(input.map((m) => m.playerId)).size);
  });
});

describe('sharded seasons: rebuild, reconcile, player removal and close (issue 11 part 4)', () => {
  const TTL_MS = (b: Board) => boardExpireAt(b, TTL);

  /** Twins fed the same results; `more` applies further results to both, as ingest would. */
  async function fedTwins(def: Partial<SeasonDefinition>, bounds: number[], seed: number) {
    const [sharded, single] = await twins(def, bounds);
    const store = createResultsStore(s.pg.sql);
    const writer = createBoardWriter(s.redis, TTL);
    const more = async (ms: readonly MatchResultMessage[]) => {
      await applyResults({ store, boards: writer, seasonOf: () => sharded, now: Date.now }, accepted(ms, sharded.id));
      await applyResults(
        { store, boards: writer, seasonOf: () => single, now: Date.now },
        accepted(ms, single.id, true),
      );
    };
    const input = generateResults(sharded, { results: 1_200, players: 150, seed, maxPoints: 60 });
    await more(input);
    return { sharded, single, more, players: [...new Set(input.map((m) => m.playerId))] };
  }

  /** What reconcileSeason needs, on the test's PostgreSQL and Redis. */
  const reconcileDeps = () => ({
    standings: createStandingsPages(s.pg.sql),
    boards: createBoardInspector(s.redis, TTL),
    codecOf,
    isFinalized: async () => false,
    expireAt: TTL_MS,
    now: Date.now,
  });

  async function expectLikeOracle(sharded: Season, single: Season, players: readonly string[]): Promise<void> {
    for (const b of await boardsOf(s, sharded)) {
      await expectSameReads(b, { ...b, season: single }, players);
      await expectEachMemberOnce(b, { ...b, season: single });
    }
  }

  const copiesLeft = async (seasonId: number) => {
    const left: string[] = [];
    await scanKeys(s.redis, rebuildCopyKey(shardKeysPattern(seasonId)), async (k) => void left.push(...k));
    return left;
  };

  it('rebuild restores damaged shards from PostgreSQL while ingest writes between its fills and swaps', async () => {
    const { sharded, single, more, players } = await fedTwins({ rankStyle: 'COMPETITION' }, [15, 35], 21);
    const tags = sharded.shards!.tags;
    // Damage: a whole shard lost, a stranger and a member with a wrong score on other shards.
    await s.redis.unlink(shardBoardKey(tags[2]!, 'SEASON', ''));
    await s.redis.zadd(shardBoardKey(tags[0]!, 'SEASON', ''), '1', 'ghost');
    await s.redis.zadd(shardBoardKey(tags[1]!, 'SEASON', ''), '1', players[0]!);
    // Players climb while the rebuild runs: a chunk lands after every fill, before its swap.
    const later = generateResults(sharded, { results: 900, players: 150, seed: 22, maxPoints: 70 });
    let next = 0;
    const boards = (await boardsOf(s, sharded)).length;
    const rebuilder = createBoardRebuilder(s.redis, TTL);
    const report = await rebuildSeason(
      {
        source: createStandingsReader(s.pg.sql),
        target: {
          ...rebuilder,
          async fill(...a) {
            await rebuilder.fill(...a);
            await more(later.slice(next, (next += 100)));
          },
        },
        expireAt: TTL_MS,
        now: Date.now,
      },
      sharded,
    );
    expect(report.boards).toBe(boards);
    await more(later.slice(next));
    expect(next).toBeGreaterThan(0);
    await expectLikeOracle(sharded, single, players);
    expect(await copiesLeft(sharded.id)).toEqual([]);
  });

  it('reconcile reports missing, different and extra members across shards, and its repair makes them equal the oracle', async () => {
    const { sharded, single, players } = await fedTwins({}, [20, 40, 55], 31);
    const keys = shardKeys(seasonBoard(sharded as Season & { shards: NonNullable<Season['shards']> }));
    const held = async (m: string) => {
      const scores = await Promise.all(keys.map((k) => s.redis.zscore(k, m)));
      const k = scores.findIndex((x) => x !== null);
      return { k, score: scores[k]! };
    };
    const [a, b, c] = players;
    // a: missing; b: one unit lower on its shard; c: far higher, on the best shard; two extras.
    const atA = await held(a!);
    await s.redis.zrem(keys[atA.k]!, a!);
    const atB = await held(b!);
    await s.redis.zadd(keys[atB.k]!, String(Number(atB.score) - 1), b!);
    const atC = await held(c!);
    await s.redis.zrem(keys[atC.k]!, c!);
    await s.redis.zadd(keys.at(-1)!, String(codecOf(sharded).pointsFloor(1_000)), c!);
    await s.redis.zadd(keys[1]!, '5', '123456789', '6', 'not a player');
    // A DAY board's shard lost: its members are missing.
    const day = (await boardsOf(s, sharded)).find((x) => x.window === 'DAY')!;
    const dayKeys = shardKeys({
      season: sharded as Season & { shards: NonNullable<Season['shards']> },
      window: 'DAY',
      period: day.period,
    });
    const sizes = await Promise.all(dayKeys.map((k) => s.redis.zcard(k)));
    const lost = Math.max(...sizes);
    await s.redis.unlink(dayKeys[sizes.indexOf(lost)]!);

    const deps = reconcileDeps();
    const found = await reconcileSeason(deps, sharded, { pageSize: 50 });
    expect(found.total).toMatchObject({ missing: 1 + lost, different: 2, extra: 2, repaired: 0 });
    expect(found.total.samples.different.sort()).toEqual([b!, c!].sort());
    expect(found.total.samples.extra.sort()).toEqual(['123456789', 'not a player']);
    const repaired = await reconcileSeason(deps, sharded, { repair: true, pageSize: 50 });
    expect(repaired.total.repaired).toBe(3 + lost + 2);
    expect((await reconcileSeason(deps, sharded)).total).toMatchObject({ missing: 0, different: 0, extra: 0 });
    await expectLikeOracle(sharded, single, players);
  });

  it('reconcile finds a member that a mover left on two shards (it died between its two writes) and repairs it', async () => {
    const { sharded, single, players } = await fedTwins({ rankStyle: 'COMPETITION' }, [15, 35], 51);
    const season = sharded as Season & { shards: NonNullable<Season['shards']> };
    const keys = shardKeys(seasonBoard(season));
    const held = await heldScores(s.redis, keys, players);
    // Members on a better shard than the worst; each also keeps a copy on the worst shard with a
    // lower score, as a mover leaves it after adding a crossing member above and dying before the
    // removal. It opened a move window first: the board's kept sizes are gone.
    const lifted = players.filter((_, i) => held[0]![i] === null).slice(0, 3);
    expect(lifted).toHaveLength(3);
    const low = String(codecOf(season).pointsFloor(1));
    await s.redis.zadd(keys[0]!, ...lifted.flatMap((m) => [low, m]));
    await s.redis.del(shardSizesKey(season.id, 'SEASON'));
    const deps = reconcileDeps();
    // The best score of each is PostgreSQL's, but Redis holds two: counted as different.
    const found = await reconcileSeason(deps, sharded, { pageSize: 50 });
    expect(found.total).toMatchObject({ missing: 0, different: 3, extra: 0, repaired: 0 });
    expect(found.total.samples.different.sort()).toEqual([...lifted].sort());
    const repaired = await reconcileSeason(deps, sharded, { repair: true, pageSize: 50 });
    expect(repaired.total).toMatchObject({ different: 3, repaired: 3 });
    expect((await reconcileSeason(deps, sharded)).total).toMatchObject({ missing: 0, different: 0, extra: 0 });
    await expectLikeOracle(sharded, single, players);
  });

  it('an exact write leaves a member that an ingest raise changed since it was read (a conflict), and writes the others', async () => {
    const [sharded] = await twins({}, [10, 30]);
    const season = sharded as Season & { shards: NonNullable<Season['shards']> };
    const keys = shardKeys(seasonBoard(season));
    const codec = codecOf(season);
    const at = new Date(season.startsAt.getTime() + 3_600_000);
    const score = (points: number) => codec.encode(points, at);
    const board = (pairs: Array<[string, number]>) => writeShardedBoard(s.redis, seasonBoard(season), pairs, 0);
    await board([
      ['1', score(35)],
      ['2', score(35)],
      ['3', score(20)],
    ]);
    const members = ['1', '2', '3'];
    const held = await heldScores(s.redis, keys, members);
    // Player 1 rises inside the best shard after the read: the write must not lower it.
    await board([['1', score(40)]]);
    const lower = (points: number) => codec.toRedis(score(points));
    const { conflicts } = await setOnShards(
      s.redis,
      season,
      keys,
      [
        ['1', lower(5)],
        ['2', lower(5)],
        ['3', ''],
      ],
      held,
      0,
      keptSizes(seasonBoard(season), 0),
    );
    expect([...conflicts]).toEqual(['1']);
    const now = await heldScores(s.redis, keys, members);
    expect(now.map((shard) => shard.map((v) => (v === null ? null : codec.decode(codec.fromRedis(v)).points)))).toEqual(
      [
        [null, 5, null],
        [null, null, null],
        [40, null, null],
      ],
    );
  });

  it("a cheater's removal (service and settle pass) and the season's close, on both twins", async () => {
    const { sharded, single, more, players } = await fedTwins(
      { scoring: 'SUM', rankStyle: 'COMPETITION' },
      [100, 300],
      41,
    );
    const cheat = (se: Season) =>
      Array.from({ length: 5 }, (_, i) => ({
        v: 1 as const,
        matchId: randomUUID(),
        seasonId: se.id,
        endedAt: new Date(se.startsAt.getTime() + (i + 1) * 3_600_000).toISOString(),
        playerId: '777000777',
        points: 900,
      }));
    await more(cheat(sharded));
    const deps = {
      seasonById: (id: number) => s.seasons.get(id),
      store: createPlayerResultsStore(s.pg.sql),
      boards: createBoardResetter(s.redis, TTL),
      now: Date.now,
    };
    for (const se of [sharded, single]) {
      const { settle } = await removePlayerResults(deps, {
        seasonId: se.id,
        playerId: '777000777',
        reason: 'bot',
        actor: 'test',
      });
      await settlePlayerRemoval(deps, settle[0]!);
    }
    await expectLikeOracle(sharded, single, [...players, '777000777']);

    const closed = await closeSeason(
      {
        store: createSeasonLifecycleStore(s.pg),
        ingest: { endOffsets: async () => [], committedOffsets: async () => new Map() },
        keys: createSeasonKeys(s.redis),
        invalidate: () => {},
        cacheTtlMs: 0,
        graceMs: 0,
        drainTimeoutMs: 1_000,
      },
      sharded.id,
      { actor: 'test', reason: 'sharded close' },
    );
    const [{ n }] = await s.pg.sql<
      [{ n: number }]
    >`select count(*)::int as n from standings where season_id = ${sharded.id}`;
    expect(closed).toMatchObject({ finalized: true, rows: n });
    const left: string[] = [];
    await scanKeys(s.redis, shardKeysPattern(sharded.id), async (k) => void left.push(...k));
    expect(left).toEqual([]);
  });
});
