// The top cache moves a board's snapshot with each raise event in memory (top-cache.ts topAfter):
// checked against the real board scripts, event by event, in both orders and both rank styles.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Board } from '../../src/domain/board.js';
import type { RankStyle, Season, SortOrder } from '../../src/domain/season.js';
import { createBoardReader } from '../../src/redis/board-reader.js';
import { createBoardWriter } from '../../src/redis/board-writer.js';
import { createLivePubSub } from '../../src/redis/live-pubsub.js';
import { createBoardVersions } from '../../src/service/board-events.js';
import { createTopCache } from '../../src/service/top-cache.js';
import { testConfig } from '../support/env.js';
import { createSeason, openServices, waitFor, type Services } from '../support/services.js';

let s: Services;
beforeAll(() => {
  s = openServices(testConfig());
});
afterAll(async () => {
  await s?.close();
});

/**
 * A season's SEASON board with a writer, a reader, and a top cache fed by its events (the kinds
 * heard kept in order); `reads()` counts the cache's reads of Redis.
 */
async function followed(season: Season) {
  const board: Board = { season, window: 'SEASON', period: '' };
  const reader = createBoardReader(s.redis);
  const versions = createBoardVersions();
  let fetched = 0;
  // No age refresh in these tests: every read counted is one the events did not spare.
  const top = createTopCache({ source: reader, versions, maxAgeMs: 600_000, onFetch: () => fetched++ });
  const live = createLivePubSub(s.redis.duplicate(), s.redis.duplicate());
  const kinds: string[] = [];
  const stop = await live.subscribe({
    event: (e) => {
      if (e.seasonId !== season.id) return;
      kinds.push(e.kind);
      versions.note(e);
      top.heard(e);
    },
    names: () => {},
    lost: () => {},
  });
  return {
    board,
    writer: createBoardWriter(s.redis, 3600),
    reader,
    versions,
    top,
    reads: () => fetched,
    kinds,
    stop,
    live,
  };
}

const cases: Array<[SortOrder, RankStyle]> = [
  ['DESC', 'ORDINAL'],
  ['DESC', 'COMPETITION'],
  ['ASC', 'ORDINAL'],
  ['ASC', 'COMPETITION'],
];

describe.each(cases)('the top cache of a %s %s board', (order, rankStyle) => {
  it('follows raise events in memory to exactly what Redis answers, after one read', async () => {
    const season = await createSeason(s, { order, rankStyle, maxPointsPerMatch: 1_000 });
    const { board, writer, reader, versions, top, reads, stop, live } = await followed(season);
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    // Times a few seconds apart, points from 1,000 values: ties of points, and of both.
    const write = (players: Array<[string, number]>) =>
      writer.write(
        players.map(([playerId, points]) => ({
          seasonId: season.id,
          window: 'SEASON' as const,
          period: '',
          playerId,
          points,
          achievedAt: new Date(season.startsAt.getTime() + 1_000 * random(5)),
        })),
        () => season,
        Date.now(),
      );

    // Twice the players the cache holds (1,000): raises cross its last place both ways.
    await write(Array.from({ length: 2_000 }, (_, i): [string, number] => [String(i), random(1_000)]));
    expect((await top.snapshot(board)).entries).toHaveLength(1_000);
    expect(reads()).toBe(1);

    let moved = 0;
    let unmoved = 0;
    let previous = await reader.snapshot(board, 1_000);
    for (let round = 0; round < 60; round++) {
      const players = Array.from({ length: 1 + random(4) }, (): [string, number] => [
        String(random(2_200)), // some new to the board
        random(1_000),
      ]);
      const { changed } = await write(players);
      if (changed === 0) continue;
      const truth = await reader.snapshot(board, 1_000);
      await waitFor(`the event of version ${truth.version}`, async () => versions.of(board).seen >= truth.version);
      expect(await top.snapshot(board)).toEqual(truth);
      if (JSON.stringify(truth.entries) === JSON.stringify(previous.entries)) unmoved++;
      else moved++;
      previous = truth;
    }
    // Only the first read: every event was applied in memory.
    expect(reads()).toBe(1);
    expect(moved).toBeGreaterThan(10);
    expect(unmoved).toBeGreaterThan(0);
    stop();
    await live.close();
  });
});

describe('the top cache of a LAST board', () => {
  it("re-reads after a 'set' event (a score went down) and stays what Redis answers; rises alone still apply in memory", async () => {
    const season = await createSeason(s, { scoring: 'LAST', maxPointsPerMatch: 1_000 });
    const { board, writer, reader, versions, top, reads, kinds, stop, live } = await followed(season);
    // Each round a second later than the last: every write is newer, so a lower score replaces a higher.
    const write = (second: number, players: Array<[string, number]>) =>
      writer.write(
        players.map(([playerId, points]) => ({
          seasonId: season.id,
          window: 'SEASON' as const,
          period: '',
          playerId,
          points,
          achievedAt: new Date(season.startsAt.getTime() + 1_000 * second),
        })),
        () => season,
        Date.now(),
      );
    await write(
      0,
      Array.from({ length: 50 }, (_, i): [string, number] => [String(i), 10 * i]),
    );
    await top.snapshot(board);
    for (let round = 1; round <= 30; round++) {
      // Player 49 (490 points, the lead) falls to 0 in odd rounds and rises to 900 in even ones.
      const { changed } = await write(round, [['49', round % 2 ? 0 : 900]]);
      expect(changed).toBe(1);
      const truth = await reader.snapshot(board, 1_000);
      await waitFor(`the event of version ${truth.version}`, async () => versions.of(board).seen >= truth.version);
      expect(await top.snapshot(board)).toEqual(truth);
    }
    // An older standing (a stale writer) changes nothing, not even a version.
    const before = await reader.snapshot(board, 1_000);
    expect((await write(5, [['49', 999]])).changed).toBe(0);
    expect(await reader.snapshot(board, 1_000)).toEqual(before);
    expect(kinds.filter((k) => k === 'set')).toHaveLength(15);
    expect(kinds.filter((k) => k === 'raise')).toHaveLength(16);
    // The first read, then one per drop: a raise alone is applied in memory.
    expect(reads()).toBe(16);
    stop();
    await live.close();
  });
});
