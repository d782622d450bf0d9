import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { standingsRows } from '../../src/domain/standings-page.js';
import { createBoardRebuilder } from '../../src/redis/board-rebuilder.js';
import { createBoardWriter } from '../../src/redis/board-writer.js';
import { boardKey, rebuildCopyKey } from '../../src/redis/keys.js';
import { seasonBoard } from '../../src/domain/board.js';
import { swapStatus } from '../../src/redis/scripts.js';
import { testConfig } from '../support/env.js';
import { utcDay } from '../support/oracle.js';
import { createSeason, openServices, type Services } from '../support/services.js';

let s: Services;
const TTL = 90 * 24 * 3600;

beforeAll(() => {
  s = openServices(testConfig());
});

afterAll(async () => {
  await s?.close();
});

describe('swapStatus', () => {
  it.each([
    [1, 'swapped'],
    [0, 'noCopy'],
  ] as const)('reads %d as %s', (returned, status) => {
    expect(swapStatus(returned)).toBe(status);
  });

  it('refuses a status no version of the script returns', () => {
    expect(() => swapStatus(2)).toThrow(/swapBoard returned 2/);
  });
});

describe('the board rebuilder', () => {
  it('swaps a filled copy in, and refuses (UNAVAILABLE, board unchanged) when the copy is gone', async () => {
    const season = await createSeason(s, { name: 'rebuilder swap' });
    const rebuilder = createBoardRebuilder(s.redis, TTL);
    const board = boardKey(seasonBoard(season));
    await s.redis.zadd(board, '1', '42');
    expect(await rebuilder.acquire(season.id)).toBe(true);

    await rebuilder.fill(
      seasonBoard(season),
      standingsRows([{ playerId: '7', points: 10, achievedAt: season.startsAt }]),
    );
    await rebuilder.swap(seasonBoard(season));
    expect(await s.redis.zrange(board, 0, -1)).toEqual(['7']);

    // The copy vanished (expired, deleted) between fill and swap: no silent "rebuilt".
    await rebuilder.fill(
      seasonBoard(season),
      standingsRows([{ playerId: '8', points: 10, achievedAt: season.startsAt }]),
    );
    await s.redis.del(rebuildCopyKey(board));
    await expect(rebuilder.swap(seasonBoard(season))).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(await s.redis.zrange(board, 0, -1)).toEqual(['7']);
    await rebuilder.release(season.id);
  });

  it('leaves no copy behind, not even of a board ingest created during the rebuild', async () => {
    const season = await createSeason(s, { name: 'rebuilder release' });
    const rebuilder = createBoardRebuilder(s.redis, TTL);
    const writer = createBoardWriter(s.redis, TTL);
    expect(await rebuilder.acquire(season.id)).toBe(true);
    await rebuilder.fill(
      seasonBoard(season),
      standingsRows([{ playerId: '7', points: 10, achievedAt: season.startsAt }]),
    );
    await rebuilder.swap(seasonBoard(season));
    // Ingest meanwhile: a DAY board the rebuild's snapshot did not have, and the swapped board again.
    const day = new Date(season.startsAt.getTime() + 3_600_000);
    await writer.write(
      [
        { seasonId: season.id, window: 'DAY', period: utcDay(day), playerId: '9', points: 5, achievedAt: day },
        { seasonId: season.id, window: 'SEASON', period: '', playerId: '9', points: 5, achievedAt: day },
      ],
      () => season,
      Date.now(),
    );
    expect(await s.redis.exists(rebuildCopyKey(boardKey({ season, window: 'DAY', period: utcDay(day) })))).toBe(1);
    await rebuilder.release(season.id);
    expect((await s.redis.keys(`lb:{s${season.id}}*`)).filter((k) => k.endsWith(':rebuild'))).toEqual([]);
  });
});
