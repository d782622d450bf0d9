// Whole-board snapshots and tie-heavy traffic for the season close tests.
import { expect } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { AcceptedResult } from '../../src/domain/board-deltas.js';
import { LIMITS, type Board } from '../../src/domain/board.js';
import type { RankedStanding } from '../../src/domain/ranking.js';
import type { Season, Window } from '../../src/domain/season.js';
import { createLeaguesStore } from '../../src/postgres/leagues-store.js';
import { createResultsStore } from '../../src/postgres/results-store.js';
import type { BoardReader } from '../../src/redis/board-reader.js';
import { createBoardWriter } from '../../src/redis/board-writer.js';
import { applyResults } from '../../src/service/apply-results.js';
import type { BoardAnswer, BoardQuery, BoardReads, LeaderboardReads } from '../../src/service/leaderboard-reads.js';
import { prng, shuffle } from './generate.js';
import type { Services } from './services.js';

/**
 * `players` players, each with one result and a share of them (`repeat`, default a third) with a
 * second, in matches of 5.
 * Points come from a small range and times from a few hundred whole seconds, so equal points
 * and equal composite scores are everywhere; ids of 1, 10 and 19 digits make byte order differ
 * from numeric order. Times lie in the season's past days, spread over several DAY/WEEK boards.
 */
export function tieHeavyResults(
  season: Season,
  opts: { players: number; seed: number; maxPoints: number; repeat?: number },
): AcceptedResult[] {
  const rand = prng(opts.seed);
  const from = season.startsAt.getTime();
  const span = Math.min(Date.now(), season.endsAt.getTime()) - from - 60_000;
  const instants = Array.from({ length: 400 }, () => from + Math.floor((rand() * span) / 1000) * 1000);
  const idOf = (i: number) =>
    i % 3 === 0
      ? String(i + 1)
      : i % 3 === 1
        ? String(9_000_000_000n + BigInt(i))
        : String(9_100_000_000_000_000_000n + BigInt(i));
  const entries: Array<{ playerId: string }> = [];
  for (let i = 0; i < opts.players; i++) {
    entries.push({ playerId: idOf(i) });
    if (rand() < (opts.repeat ?? 1 / 3)) entries.push({ playerId: idOf(i) });
  }
  shuffle(entries, rand);
  const out: AcceptedResult[] = [];
  for (let i = 0; i < entries.length; i += 5) {
    const matchId = randomUUID();
    const endedAt = new Date(instants[Math.floor(rand() * instants.length)]!);
    const inMatch = new Set<string>();
    for (const { playerId } of entries.slice(i, i + 5)) {
      if (inMatch.has(playerId)) continue; // a player plays a match once
      inMatch.add(playerId);
      out.push({
        matchId,
        playerId,
        seasonId: season.id,
        endedAt,
        points: Math.floor(rand() * (opts.maxPoints + 1)),
        partition: 0,
        offset: String(out.length),
      });
    }
  }
  return out;
}

/** Applies results the way the ingest consumer does (PostgreSQL, then Redis), in chunks. */
export async function ingestDirect(
  s: Services,
  season: Season,
  results: readonly AcceptedResult[],
  windowTtlSeconds: number,
  chunk = 5_000,
): Promise<void> {
  const deps = {
    store: createResultsStore(s.pg.sql),
    boards: createBoardWriter(s.redis, windowTtlSeconds),
    seasonOf: () => season,
    now: Date.now,
    // A league season places its players at their first result, as ingest does.
    ...(season.league ? { leagues: createLeaguesStore(s.pg.sql) } : {}),
  };
  for (let i = 0; i < results.length; i += chunk) await applyResults(deps, results.slice(i, i + chunk));
}

/** Every board of the season that has standings in PostgreSQL. */
export async function boardsOf(s: Services, season: Season): Promise<Board[]> {
  const rows = await s.pg.sql<Array<{ window: Window; period: string }>>`
    select distinct "window", period from standings where season_id = ${season.id} order by 1, 2`;
  return rows.map((r) => ({ season, window: r.window, period: r.period }));
}

export const labelOf = (b: Pick<Board, 'window' | 'period'>) => `${b.window}:${b.period}`;

/** Each board read whole, page by page through `reads.top`, keyed by labelOf. */
export async function readWhole(
  reads: Pick<BoardReads, 'top'>,
  boards: readonly Board[],
  page = 1_000,
): Promise<Map<string, RankedStanding[]>> {
  const out = new Map<string, RankedStanding[]>();
  for (const b of boards) {
    const all: RankedStanding[] = [];
    for (let offset = 0; ; offset += page) {
      const rows = await reads.top(b, offset, page);
      all.push(...rows);
      if (rows.length < page) break;
    }
    out.set(labelOf(b), all);
  }
  return out;
}

/** INFO memory used_memory, once Redis has freed what UNLINK handed to its background thread. */
export async function usedMemory(s: Services): Promise<number> {
  for (let i = 0; i < 100; i++) {
    const info = await s.redis.info('memory');
    const pending = Number(/lazyfree_pending_objects:(\d+)/.exec(info)?.[1] ?? 0);
    if (pending === 0) return Number(/used_memory:(\d+)/.exec(info)![1]);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('Redis did not finish its lazy frees');
}

/** One entry as a comparable line. */
export const line = (e: RankedStanding) => `${e.rank} ${e.playerId} ${e.points} ${e.achievedAt.toISOString()}`;

/** The contract's reads over a few players of a board: edges and middle, every radius kind, friends with strangers. */
export async function sampleReads(reads: LeaderboardReads, board: Board, whole: readonly RankedStanding[]) {
  const at = (i: number) => whole[Math.max(0, Math.min(whole.length - 1, i))]!.playerId;
  const picks = [0, 1, 3, Math.floor(whole.length / 2), whole.length - 2, whole.length - 1].map(at);
  const friends = [
    ...whole
      .filter((_, i) => i % Math.max(1, Math.floor(whole.length / 190)) === 0)
      .map((e) => e.playerId)
      .slice(0, 195),
    '2',
    '5',
    '8',
  ];
  return {
    size: await reads.size(board),
    top: (await reads.top(board, 100, 0)).map(line),
    deep: (await reads.top(board, 50, Math.floor(whole.length / 3))).map(line),
    entries: await Promise.all(
      [...picks, '2'].map(async (p) => {
        const e = await reads.entry(board, p);
        return e && line(e);
      }),
    ),
    around: await Promise.all(
      picks.flatMap((p) => [0, 5, 50].map(async (r) => (await reads.around(board, p, r)).map(line))),
    ),
    friends: (await reads.friends(board, friends)).map(line),
  };
}

/** Asserts `actual` equals `expected` line for line, reporting the first difference of a board. */
export function expectSameBoards(actual: Map<string, RankedStanding[]>, expected: Map<string, RankedStanding[]>): void {
  expect([...actual.keys()]).toEqual([...expected.keys()]);
  for (const [label, rows] of expected) {
    const want = rows.map(line);
    const got = actual.get(label)!.map(line);
    const i = want.findIndex((w, k) => got[k] !== w);
    expect({ label, length: got.length, first: i < 0 ? null : { at: i, got: got[i], want: want[i] } }).toEqual({
      label,
      length: want.length,
      first: null,
    });
  }
}

/** The board sources of createLeaderboardReads over plain reads (no cache): Redis's, or PostgreSQL's at version 0. */
export function readSources(reads: BoardReads | BoardReader) {
  if ('versioned' in reads) return { live: reads, top: { snapshot: (b: Board) => reads.snapshot(b, LIMITS.topLimit) } };
  return {
    live: {
      read: async (b: Board, q: BoardQuery): Promise<BoardAnswer> => ({
        version: 0,
        size: q.top > 0 ? await reads.size(b) : 0,
        top: q.top > 0 ? await reads.top(b, 0, q.top) : [],
        pages: await Promise.all(q.pages.map((p) => reads.top(b, p.offset, p.limit))),
        entries: q.playerIds.length > 0 ? await reads.entries(b, q.playerIds) : [],
        arounds: await Promise.all(q.arounds.map((a) => reads.around(b, a.playerId, a.radius))),
      }),
    },
    top: {
      snapshot: async (b: Board) => ({
        version: 0,
        size: await reads.size(b),
        entries: await reads.top(b, 0, LIMITS.topLimit),
      }),
    },
  };
}
