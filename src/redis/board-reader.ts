import type { Redis } from 'ioredis';
import type { Board } from '../domain/board.js';
import { pageRanks } from '../domain/page-ranks.js';
import type { RankedStanding } from '../domain/ranking.js';
import { codecOf } from '../domain/score-codec.js';
import type { BoardAnswer, BoardQuery } from '../service/leaderboard-reads.js';
import { boardKey, boardLabel, boardVersionsKey } from './keys.js';
import { isSharded } from './sharded-boards.js';
import { readShardedBoard } from './sharded-read.js';

/** A read's value and the board version it was read at (see service/board-events.ts). */
export interface Versioned<T> {
  version: number;
  value: T;
}

const keyOf = (b: Board) => boardKey(b);
const versionsOf = (b: Board) => boardVersionsKey(b.season.id);
const labelOf = (b: Board) => boardLabel(b);
const stepOf = (b: Board) => (b.season.rankStyle === 'COMPETITION' ? String(codecOf(b.season).maxTime + 1) : '0');

/** Decodes [member, score, member, score, ...] starting at `from` and ranks it as a page. */
function decodePage(
  b: Board,
  reply: Array<string | number>,
  from: number,
  firstPosition: number,
  firstRank: number,
): RankedStanding[] {
  const codec = codecOf(b.season);
  const entries: RankedStanding[] = [];
  const points: number[] = [];
  for (let i = from; i < reply.length; i += 2) {
    const decoded = codec.decode(codec.fromRedis(String(reply[i + 1])));
    points.push(decoded.points);
    entries.push({ playerId: String(reply[i]), points: decoded.points, achievedAt: decoded.achievedAt, rank: 0 });
  }
  const ranks = pageRanks(b.season.rankStyle, firstPosition, firstRank, points);
  for (let i = 0; i < entries.length; i++) entries[i]!.rank = ranks[i]!;
  return entries;
}

/** Reads boards from Redis; every read is one Lua call (one instant) and reports the board's version. */
export function createBoardReader(redis: Redis) {
  /** One page with the board's size, at one instant. */
  async function page(b: Board, offset: number, limit: number) {
    if (isSharded(b.season)) {
      const q = { top: 0, pages: [{ offset, limit }], playerIds: [], arounds: [] };
      const a = await readShardedBoard(redis, { ...b, season: b.season }, q);
      return { version: a.version, size: a.size, entries: a.pages[0]! };
    }
    const reply = await redis.readTop(keyOf(b), versionsOf(b), String(offset), String(limit), stepOf(b), labelOf(b));
    return {
      version: Number(reply[0]),
      size: Number(reply[1]),
      entries: decodePage(b, reply, 3, offset, Number(reply[2])),
    };
  }

  async function around(b: Board, playerId: string, radius: number): Promise<Versioned<RankedStanding[]>> {
    if (isSharded(b.season)) {
      const a = await read(b, { top: 0, pages: [], playerIds: [], arounds: [{ playerId, radius }] });
      return { version: a.version, value: a.arounds[0]! };
    }
    const reply = await redis.readAround(keyOf(b), versionsOf(b), playerId, String(radius), stepOf(b), labelOf(b));
    const version = Number(reply[0]);
    if (reply.length === 2) return { version, value: [] };
    return { version, value: decodePage(b, reply, 4, Number(reply[2]), Number(reply[3])) };
  }

  async function entries(b: Board, playerIds: readonly string[]): Promise<Versioned<RankedStanding[]>> {
    if (isSharded(b.season)) {
      const a = await read(b, { top: 0, pages: [], playerIds, arounds: [] });
      return { version: a.version, value: a.entries };
    }
    return decodeEntries(b, await redis.readEntries(keyOf(b), versionsOf(b), stepOf(b), labelOf(b), ...playerIds));
  }

  function decodeEntries(b: Board, reply: Array<string | number>): Versioned<RankedStanding[]> {
    const codec = codecOf(b.season);
    const out: RankedStanding[] = [];
    for (let i = 2; i < reply.length; i += 3) {
      const { points, achievedAt } = codec.decode(codec.fromRedis(String(reply[i + 1])));
      out.push({ playerId: String(reply[i]), points, achievedAt, rank: Number(reply[i + 2]) });
    }
    return { version: Number(reply[0]), value: out };
  }

  /**
   * Answers every part of `q` at one instant: one script call for a single part, else the
   * scripts in one MULTI (Redis runs a transaction with no other command in between).
   */
  async function read(b: Board, q: BoardQuery): Promise<BoardAnswer> {
    // A board of score-range shards is read shard by shard (docs/scale-out.md).
    if (isSharded(b.season)) {
      return readShardedBoard(redis, { ...b, season: b.season }, q);
    }
    const [key, versions, step, label] = [keyOf(b), versionsOf(b), stepOf(b), labelOf(b)];
    type Part = [
      command: 'readTop' | 'readEntries' | 'readAround',
      args: string[],
      use: (reply: Array<string | number>) => void,
    ];
    const answer: BoardAnswer = { version: 0, size: 0, top: [], pages: [], entries: [], arounds: [] };
    const parts: Part[] = [];
    if (q.top > 0) {
      parts.push([
        'readTop',
        [key, versions, '0', String(q.top), step, label],
        (r) => {
          answer.size = Number(r[1]);
          answer.top = decodePage(b, r, 3, 0, Number(r[2]));
        },
      ]);
    }
    q.pages.forEach(({ offset, limit }, i) =>
      parts.push([
        'readTop',
        [key, versions, String(offset), String(limit), step, label],
        (r) => {
          answer.size = Number(r[1]);
          answer.pages[i] = decodePage(b, r, 3, offset, Number(r[2]));
        },
      ]),
    );
    if (q.playerIds.length > 0) {
      parts.push([
        'readEntries',
        [key, versions, step, label, ...q.playerIds],
        (r) => {
          answer.size = Number(r[1]);
          answer.entries = decodeEntries(b, r).value;
        },
      ]);
    }
    q.arounds.forEach(({ playerId, radius }, i) =>
      parts.push([
        'readAround',
        [key, versions, playerId, String(radius), step, label],
        (r) => {
          answer.size = Number(r[1]);
          answer.arounds[i] = r.length === 2 ? [] : decodePage(b, r, 4, Number(r[2]), Number(r[3]));
        },
      ]),
    );
    let replies: Array<Array<string | number>>;
    if (parts.length === 1) {
      const [command, args] = parts[0]!;
      replies = [await (redis[command] as (...a: string[]) => Promise<Array<string | number>>)(...args)];
    } else {
      const multi = redis.multi();
      for (const [command, args] of parts) (multi[command] as (...a: string[]) => unknown)(...args);
      const results = (await multi.exec()) ?? [];
      replies = results.map(([err, reply]) => {
        if (err) throw err;
        return reply as Array<string | number>;
      });
    }
    parts.forEach(([, , use], i) => use(replies[i]!));
    answer.version = replies.length > 0 ? Number(replies[0]![0]) : 0;
    return answer;
  }

  return {
    read,
    /** Entries 0..limit-1 and the size, at one instant (the top cache's read). */
    snapshot: (b: Board, limit: number) => page(b, 0, limit),
    /** Entries with the version they were read at (the rank watcher). */
    versioned: { entries },

    async size(b: Board): Promise<number> {
      if (isSharded(b.season)) return (await page(b, 0, 0)).size;
      return redis.zcard(keyOf(b));
    },

    /** Entries offset..offset+limit-1, best first. */
    async top(b: Board, offset: number, limit: number): Promise<RankedStanding[]> {
      return (await page(b, offset, limit)).entries;
    },

    /** The player and up to `radius` players on each side; [] when unranked. */
    async around(b: Board, playerId: string, radius: number): Promise<RankedStanding[]> {
      return (await around(b, playerId, radius)).value;
    },

    /** The ranked ones among `playerIds`, in the order given. */
    async entries(b: Board, playerIds: readonly string[]): Promise<RankedStanding[]> {
      if (playerIds.length === 0) return [];
      return (await entries(b, playerIds)).value;
    },
  };
}

export type BoardReader = ReturnType<typeof createBoardReader>;
