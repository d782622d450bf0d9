// Reads of a sharded board: exact global ranks over every shard (docs/scale-out.md).
import type { Redis } from 'ioredis';
import { pageRanks } from '../domain/page-ranks.js';
import type { RankedStanding } from '../domain/ranking.js';
import { codecOf } from '../domain/score-codec.js';
import { aboveCounts } from '../domain/shard-changes.js';
import type { BoardAnswer, BoardQuery } from '../service/leaderboard-reads.js';
import { boardLabel, boardVersionsKey, moveEpochKey, movingKey, shardSizesKey } from './keys.js';
import { shardKeys, stepOf, type ShardedBoard } from './sharded-boards.js';

/** How often a read starts over when a move or a change of shard sizes overlapped it. */
const READ_ATTEMPTS = 8;

/**
 * Answers a BoardQuery on a sharded board: the exact global ranks of docs/scale-out.md.
 * 1. the head (move marker, move epoch, version, the shards' kept sizes), 2. when players are
 * asked (or no sizes are kept), every shard's size and the players' positions (one script per
 * shard, in parallel: one round trip per node), 3. the ranges that the top, pages and arounds
 * need, spilling from a shard to the next worse one, 4. the head again. A move in flight, a move
 * epoch that changed, or a shard whose size is not the one used starts the read over, so every
 * member is seen on exactly one shard and counted once; kept sizes that a shard contradicts (a
 * failover of the season's master brought older ones back) are not used again by this read.
 */
export async function readShardedBoard(redis: Redis, b: ShardedBoard, q: BoardQuery): Promise<BoardAnswer> {
  const season = b.season;
  const keys = shardKeys(b);
  const label = boardLabel(b);
  const step = stepOf(season);
  const codec = codecOf(season);
  const sizesKey = shardSizesKey(season.id, label);
  const head = () =>
    redis.shardedHead(movingKey(season.id), moveEpochKey(season.id), boardVersionsKey(season.id), sizesKey, label);
  const players = [...new Set([...q.playerIds, ...q.arounds.map((a) => a.playerId)])];
  let trustKept = true;

  for (let attempt = 1; ; attempt++) {
    const last = attempt >= READ_ATTEMPTS;
    const [moving, epoch, version = 0, kept = ''] = await head();
    if (moving === 1 && !last) {
      await new Promise((r) => setTimeout(r, attempt));
      continue;
    }
    // Without players to find, the kept sizes spare a call to every shard (a top, a page).
    const keptSizes = kept === '' ? [] : kept.split(',').map(Number);
    const useKept = trustKept && players.length === 0 && keptSizes.length === keys.length;
    const probes = useKept ? [] : await Promise.all(keys.map((k) => redis.shardProbe(k, step, ...players)));
    const sizes = useKept ? keptSizes : probes.map((p) => Number(p[0]));
    const above = aboveCounts(sizes);
    const size = sizes.reduce((a, n) => a + n, 0);

    // Where each asked player stands: the best shard holding them (one, unless a mover died).
    const found = new Map<string, { score: number; position: number; rank: number }>();
    players.forEach((player, i) => {
      for (let k = keys.length - 1; k >= 0; k--) {
        const p = probes[k]!;
        if (p[1 + i * 3] === '') continue;
        const local = Number(p[2 + i * 3]);
        found.set(player, {
          score: codec.fromRedis(String(p[1 + i * 3])),
          position: above[k]! + local,
          rank: step === '0' ? above[k]! + local + 1 : above[k]! + Number(p[3 + i * 3]),
        });
        break;
      }
    });

    // Global ranges [first, count) the answer needs, read shard by shard.
    const ranges: Array<[first: number, count: number]> = [];
    if (q.top > 0) ranges.push([0, q.top]);
    for (const p of q.pages) ranges.push([p.offset, p.limit]);
    const aroundFirst = q.arounds.map(({ playerId, radius }) => {
      const at = found.get(playerId);
      if (!at) return -1;
      const first = Math.max(0, Math.min(at.position - radius, size - 1 - 2 * radius));
      ranges.push([first, 2 * radius + 1]);
      return first;
    });
    const pages = await Promise.all(ranges.map(([first, count]) => readRange(first, count)));
    const [moving2, epoch2] = await head();
    if (useKept && !pages.every((p) => p.stable)) trustKept = false;
    const stable = moving2 === 0 && epoch2 === epoch && pages.every((p) => p.stable);
    if (!stable && !last) continue;

    const answer: BoardAnswer = { version, size, top: [], pages: [], entries: [], arounds: [] };
    let next = 0;
    if (q.top > 0) answer.top = pages[next++]!.entries;
    for (let i = 0; i < q.pages.length; i++) answer.pages.push(pages[next++]!.entries);
    for (const playerId of q.playerIds) {
      const at = found.get(playerId);
      if (!at) continue;
      answer.entries.push({ playerId, ...codec.decode(at.score), rank: at.rank });
    }
    answer.arounds = aroundFirst.map((first) => (first < 0 ? [] : pages[next++]!.entries));
    return answer;

    /** Global positions first..first+count-1, from the shards that hold them (best shard first). */
    async function readRange(first: number, count: number): Promise<{ entries: RankedStanding[]; stable: boolean }> {
      const parts: Array<Promise<{ k: number; reply: Array<string | number> }>> = [];
      for (let k = keys.length - 1; k >= 0; k--) {
        const from = Math.max(first, above[k]!);
        const to = Math.min(first + count, above[k]! + sizes[k]!) - 1;
        if (from > to) continue;
        const part = redis.shardRange(keys[k]!, String(from - above[k]!), String(to - above[k]!), step);
        parts.push(part.then((reply) => ({ k, reply })));
      }
      const replies = await Promise.all(parts);
      const entries: Array<Omit<RankedStanding, 'rank'>> = [];
      let firstRank = first + 1;
      let stable = true;
      replies.forEach(({ k, reply }, i) => {
        if (Number(reply[0]) !== sizes[k]) stable = false;
        if (i === 0) firstRank = above[k]! + Number(reply[1]);
        for (let j = 2; j < reply.length; j += 2) {
          entries.push({ playerId: String(reply[j]), ...codec.decode(codec.fromRedis(String(reply[j + 1]))) });
        }
      });
      const ranks = pageRanks(
        season.rankStyle,
        first,
        firstRank,
        entries.map((e) => e.points),
      );
      return { entries: entries.map((e, i) => ({ ...e, rank: ranks[i]! })), stable };
    }
  }
}
