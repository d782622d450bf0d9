// The fields of one response are read at one instant of their board, even when this process has
// not yet heard of the latest change (the top cache then holds an older snapshot).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AcceptedResult } from '../../src/domain/board-deltas.js';
import type { Board } from '../../src/domain/board.js';
import { createBoardReader } from '../../src/redis/board-reader.js';
import { createBoardVersions } from '../../src/service/board-events.js';
import { createLeaderboardReads, type BoardView } from '../../src/service/leaderboard-reads.js';
import { createTopCache } from '../../src/service/top-cache.js';
import { testConfig } from '../support/env.js';
import { ingestDirect } from '../support/season-boards.js';
import { createSeason, openServices, type Services } from '../support/services.js';

let s: Services;
beforeAll(() => {
  s = openServices(testConfig());
});
afterAll(async () => {
  await s?.close();
});

describe('leaderboard reads of one response', () => {
  it('answer size, top, entry, around and friends at one instant, newer than a snapshot the process kept', async () => {
    const season = await createSeason(s, { name: 'one instant' });
    const results = (points: Array<[string, number]>): AcceptedResult[] =>
      points.map(([playerId, p], i) => ({
        matchId: randomUUID(),
        playerId,
        seasonId: season.id,
        points: p,
        endedAt: new Date(Date.now() - 60_000),
        partition: 0,
        offset: String(i),
      }));
    await ingestDirect(
      s,
      season,
      results([
        ['1', 50],
        ['2', 40],
        ['3', 30],
        ['4', 20],
        ['5', 10],
      ]),
      3600,
    );
    const reader = createBoardReader(s.redis);
    // No board events reach these versions: the top cache keeps its first snapshot (maxAge 1 min).
    const top = createTopCache({ source: reader, versions: createBoardVersions(), maxAgeMs: 60_000 });
    const reads = createLeaderboardReads({ live: reader, top });
    const board: Board = { season, window: 'SEASON', period: '' };
    const view = (): BoardView => ({ ...board });
    const ids = (rows: Array<{ playerId: string }>) => rows.map((r) => r.playerId);

    expect(ids(await reads.top(view(), 10, 0))).toEqual(['1', '2', '3', '4', '5']);
    await ingestDirect(
      s,
      season,
      results([
        ['6', 45],
        ['3', 60],
      ]),
      3600,
    ); // unheard by this process

    // The top alone is the snapshot this process holds (as fresh as the events it heard)...
    const alone = view();
    expect([await reads.size(alone), ids(await reads.top(alone, 10, 0))]).toEqual([5, ['1', '2', '3', '4', '5']]);
    // ...but beside a per-player field, every field comes from one read of the board as it is now.
    const b = view();
    const [size, rows, entry, around, friends] = await Promise.all([
      reads.size(b),
      reads.top(b, 10, 0),
      reads.entry(b, '6'),
      reads.around(b, '6', 1),
      reads.friends(b, ['5', '3', '9']),
    ]);
    expect(size).toBe(6);
    expect(ids(rows)).toEqual(['3', '1', '6', '2', '4', '5']);
    expect(entry).toEqual(rows[2]);
    expect(around).toEqual(rows.slice(1, 4));
    expect(friends).toEqual([rows[0], rows[5]]);
    // A deep page (past the snapshot's extent) joins the same instant.
    const deep = view();
    const [page, me] = await Promise.all([reads.top(deep, 3, 2_000), reads.entry(deep, '1')]);
    expect([page, me?.rank]).toEqual([[], 2]);
  });
});
