import type { Redis } from 'ioredis';
import type { Board } from '../domain/board.js';
import { pageRanks } from '../domain/page-ranks.js';
import type { RankedStanding } from '../domain/ranking.js';
import { codecOf } from './board-writer.js';
import { boardKey } from './keys.js';

const keyOf = (b: Board) => boardKey(b.season.id, b.window, b.period);
const stepOf = (b: Board) => (b.season.rankStyle === 'COMPETITION' ? String(codecOf(b.season).maxTime + 1) : '0');

/** Decodes [member, score, member, score, ...] starting at `from` and ranks it as a page. */
function decodePage(b: Board, reply: Array<string | number>, from: number, firstPosition: number, firstRank: number): RankedStanding[] {
  const codec = codecOf(b.season);
  const entries: Array<Omit<RankedStanding, 'rank'>> = [];
  for (let i = from; i < reply.length; i += 2) {
    const { points, achievedAt } = codec.decode(codec.fromRedis(String(reply[i + 1])));
    entries.push({ playerId: String(reply[i]), points, achievedAt });
  }
  const ranks = pageRanks(b.season.rankStyle, firstPosition, firstRank, entries.map((e) => e.points));
  return entries.map((e, i) => ({ ...e, rank: ranks[i]! }));
}

/** Reads boards from Redis; every read that returns ranks is one Lua call (one instant). */
export function createBoardReader(redis: Redis) {
  return {
    async size(b: Board): Promise<number> {
      return redis.zcard(keyOf(b));
    },

    /** Entries offset..offset+limit-1, best first. */
    async top(b: Board, offset: number, limit: number): Promise<RankedStanding[]> {
      const reply = await redis.readTop(keyOf(b), String(offset), String(limit), stepOf(b));
      if (reply.length === 0) return [];
      return decodePage(b, reply, 1, offset, Number(reply[0]));
    },

    /** The player and up to `radius` players on each side; [] when unranked. */
    async around(b: Board, playerId: string, radius: number): Promise<RankedStanding[]> {
      const reply = await redis.readAround(keyOf(b), playerId, String(radius), stepOf(b));
      if (reply.length === 0) return [];
      return decodePage(b, reply, 2, Number(reply[0]), Number(reply[1]));
    },

    /** The ranked ones among `playerIds`, in the order given. */
    async entries(b: Board, playerIds: readonly string[]): Promise<RankedStanding[]> {
      if (playerIds.length === 0) return [];
      const reply = await redis.readEntries(keyOf(b), stepOf(b), ...playerIds);
      const codec = codecOf(b.season);
      const out: RankedStanding[] = [];
      for (let i = 0; i < reply.length; i += 3) {
        const { points, achievedAt } = codec.decode(codec.fromRedis(String(reply[i + 1])));
        out.push({ playerId: String(reply[i]), points, achievedAt, rank: Number(reply[i + 2]) });
      }
      return out;
    },
  };
}

export type BoardReader = ReturnType<typeof createBoardReader>;
