// Boards of a sharded season (docs/scale-out.md): each board is one ZSET per score range, each
// range under its own hash tag (so on its own master in Redis Cluster). board-writer.ts and
// board-reader.ts hand sharded seasons here, so callers never branch.
import type { Redis } from 'ioredis';
import type { Board } from '../domain/board.js';
import { pageRanks } from '../domain/page-ranks.js';
import type { RankedStanding } from '../domain/ranking.js';
import { codecOf } from '../domain/score-codec.js';
import type { Season, Window } from '../domain/season.js';
import { shardLowers, shardOf, type ShardLayout } from '../domain/shards.js';
import type { BoardAnswer, BoardQuery } from './board-reader.js';
import {
  boardLabel,
  boardVersionsKey,
  moveEpochKey,
  moverLockKey,
  movingKey,
  shardBoardKey,
  updatesChannel,
} from './keys.js';
import { dbOf } from './client.js';

type Sharded = Season & { shards: ShardLayout };

export function isSharded(season: Season): season is Sharded {
  return (season.shards?.tags.length ?? 0) > 0;
}

const stepOf = (season: Season) => (season.rankStyle === 'COMPETITION' ? String(codecOf(season).maxTime + 1) : '0');

/** The keys of a board's shards, worst range first. */
export function shardKeys(season: Sharded, window: Window, period: string): string[] {
  return season.shards.tags.map((t) => shardBoardKey(t, window, period));
}

// A mover that died keeps the lock and the move marker this long at most.
const MOVE_TTL_MS = 10_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `fn` holding the season's mover lock (one mover per season at a time, across processes). */
async function withMoverLock<T>(redis: Redis, seasonId: number, fn: () => Promise<T>): Promise<T> {
  const key = moverLockKey(seasonId);
  const token = `${process.pid}.${Math.random().toString(36).slice(2)}`;
  const deadline = Date.now() + MOVE_TTL_MS * 2;
  for (let wait = 1; (await redis.set(key, token, 'PX', MOVE_TTL_MS, 'NX')) !== 'OK'; wait = Math.min(wait * 2, 50)) {
    // A failure here leaves the chunk unapplied: the consumer retries it (nothing is lost).
    if (Date.now() > deadline) throw new Error(`the mover lock of season ${seasonId} stayed taken`);
    await sleep(wait);
  }
  try {
    return await fn();
  } finally {
    // Only our own lock: after a TTL expiry another mover may hold it.
    if ((await redis.get(key)) === token) await redis.del(key);
  }
}

interface Change {
  member: string;
  old: string;
  score: string;
  shard: number;
  localRank: number;
}

function readChanges(reply: Array<string | number>, shard: number, out: Change[]): void {
  for (let i = 0; i < reply.length; i += 4) {
    out.push({
      member: String(reply[i]),
      old: String(reply[i + 1]),
      score: String(reply[i + 2]),
      shard,
      localRank: Number(reply[i + 3]),
    });
  }
}

/**
 * Writes one board's standings (member, composite pairs), only ever raising a score, and returns
 * how many rose. Members stay on their shard in one script call per shard; members new to the
 * shard their score belongs to (new players, and players crossing into a better range) go through
 * the season's mover, which checks every shard and moves them (see `place`). Then the board's
 * version rises once and one event announces every change, with global ranks.
 */
export async function writeShardedBoard(
  redis: Redis,
  season: Sharded,
  window: Window,
  period: string,
  pairs: ReadonlyArray<readonly [string, number]>,
  expireAt: number,
): Promise<number> {
  const codec = codecOf(season);
  const lowers = shardLowers(season);
  const keys = shardKeys(season, window, period);
  const step = stepOf(season);
  const byShard = keys.map((): string[] => []);
  for (const [member, score] of pairs) byShard[shardOf(lowers, score)]!.push(member, codec.toRedis(score));
  const changes: Change[] = [];
  const absent: Array<[member: string, score: string, shard: number]> = [];
  await Promise.all(
    byShard.map(async (args, k) => {
      if (args.length === 0) return;
      const [changed, missing] = await redis.shardWrite(keys[k]!, String(expireAt), step, 'present', ...args);
      readChanges(changed, k, changes);
      for (let i = 0; i < missing.length; i += 2) absent.push([missing[i]!, missing[i + 1]!, k]);
    }),
  );
  if (absent.length > 0) {
    changes.push(...(await withMoverLock(redis, season.id, () => place(redis, season, keys, absent, expireAt, step))));
  }
  if (changes.length > 0) await announce(redis, season, window, period, keys, changes, '');
  return changes.length;
}

/**
 * Places members that were not on the shard of their new score, holding the mover lock (so two
 * movers never interleave on a player). Reads every shard's score of them; a member on no shard is
 * added; a member already holding an equal or better score elsewhere is left alone (ZADD GT
 * across shards: a replayed or stale standing changes nothing); any other is moved: added to its
 * new shard, then removed from every other, inside a move window that readers detect
 * (`moving` marker and move epoch, shardedHead-3.lua), so no reader sees it on two shards or none.
 */
async function place(
  redis: Redis,
  season: Sharded,
  keys: readonly string[],
  absent: ReadonlyArray<readonly [string, string, number]>,
  expireAt: number,
  step: string,
): Promise<Change[]> {
  const members = absent.map(([m]) => m);
  const scores = await Promise.all(keys.map((key) => redis.zmscore(key, ...members)));
  const adds = keys.map((): string[] => []);
  const removes = keys.map((): string[] => []);
  const oldOf = new Map<string, string>();
  absent.forEach(([member, score, target], i) => {
    // What the member holds on each shard (on several only after a mover died mid-move).
    const held = scores.map((s) => s[i] ?? null);
    const best = held.reduce<string | null>(
      (a, v) => (v !== null && (a === null || Number(v) > Number(a)) ? v : a),
      null,
    );
    if (best !== null && Number(best) >= Number(score)) return;
    adds[target]!.push(member, score);
    held.forEach((v, k) => v !== null && k !== target && removes[k]!.push(member));
    if (best !== null) oldOf.set(member, best);
  });
  const moving = removes.some((r) => r.length > 0);
  const changes: Change[] = [];
  if (moving)
    await redis.multi().set(movingKey(season.id), '1', 'PX', MOVE_TTL_MS).incr(moveEpochKey(season.id)).exec();
  try {
    await Promise.all(
      adds.map(async (args, k) => {
        if (args.length === 0) return;
        const [changed] = await redis.shardWrite(keys[k]!, String(expireAt), step, 'any', ...args);
        readChanges(changed, k, changes);
      }),
    );
    await Promise.all(removes.map((r, k) => (r.length > 0 ? redis.zrem(keys[k]!, ...r) : Promise.resolve(0))));
  } finally {
    // Left in place on a failure, the marker expires and the chunk's replay finishes the move.
    if (moving) await redis.multi().del(movingKey(season.id)).incr(moveEpochKey(season.id)).exec();
  }
  for (const c of changes) c.old = oldOf.get(c.member) ?? c.old;
  return changes;
}

/**
 * Sets members' scores exactly on a sharded board, lower ones included, or removes them (null):
 * the explicit path of player removal and repairs, never ingest. Holding the mover lock, each
 * member is written to the shard of its score and removed from every other shard, inside a move
 * window; one "reset" event follows. Returns how many members changed.
 */
export async function setShardedBoard(
  redis: Redis,
  season: Sharded,
  window: Window,
  period: string,
  pairs: ReadonlyArray<readonly [string, number | null]>,
  expireAt: number,
): Promise<number> {
  if (pairs.length === 0) return 0;
  const codec = codecOf(season);
  const lowers = shardLowers(season);
  const keys = shardKeys(season, window, period);
  const step = stepOf(season);
  const members = pairs.map(([m]) => m);
  const changes = await withMoverLock(redis, season.id, async () => {
    const scores = await Promise.all(keys.map((key) => redis.zmscore(key, ...members)));
    const sets = keys.map((): string[] => []);
    const removes = keys.map((): string[] => []);
    const out: Change[] = [];
    pairs.forEach(([member, score], i) => {
      const target = score === null ? -1 : shardOf(lowers, score);
      if (score !== null) sets[target]!.push(member, codec.toRedis(score));
      scores.forEach((s, k) => {
        const held = s[i];
        if (held == null || k === target) return;
        removes[k]!.push(member);
        if (score === null) out.push({ member, old: held, score: '', shard: k, localRank: 0 });
      });
    });
    const moving = removes.some((r) => r.length > 0);
    if (moving)
      await redis.multi().set(movingKey(season.id), '1', 'PX', MOVE_TTL_MS).incr(moveEpochKey(season.id)).exec();
    try {
      await Promise.all(
        sets.map(async (args, k) => {
          if (args.length === 0) return;
          const [changed] = await redis.shardWrite(keys[k]!, String(expireAt), step, 'set', ...args);
          readChanges(changed, k, out);
        }),
      );
      await Promise.all(removes.map((r, k) => (r.length > 0 ? redis.zrem(keys[k]!, ...r) : Promise.resolve(0))));
    } finally {
      if (moving) await redis.multi().del(movingKey(season.id)).incr(moveEpochKey(season.id)).exec();
    }
    // A member moved to another shard: its old score is the one it left.
    const left = new Map<string, string>();
    scores.forEach((s, k) =>
      s.forEach((held, i) => held != null && removes[k]!.includes(members[i]!) && left.set(members[i]!, held)),
    );
    for (const c of out) if (c.old === '' && left.has(c.member)) c.old = left.get(c.member)!;
    return out;
  });
  if (changes.length > 0) await announce(redis, season, window, period, keys, changes, 'reset');
  return changes.length;
}

/** Raises the board's version and publishes its changes with global ranks (local + better shards' sizes). */
async function announce(
  redis: Redis,
  season: Sharded,
  window: Window,
  period: string,
  keys: readonly string[],
  changes: readonly Change[],
  kind: '' | 'reset',
): Promise<void> {
  const sizes = await Promise.all(keys.map((k) => redis.zcard(k)));
  const above = aboveCounts(sizes);
  const u: Array<string | number> = [];
  for (const c of changes) u.push(c.member, c.old, c.score, c.localRank === 0 ? 0 : c.localRank + above[c.shard]!);
  await redis.boardEvent(
    boardVersionsKey(season.id),
    updatesChannel(dbOf(redis), season.id),
    boardLabel(window, period),
    kind,
    JSON.stringify(u),
  );
}

/** For each shard, how many members the better shards hold. */
function aboveCounts(sizes: readonly number[]): number[] {
  const above = new Array<number>(sizes.length).fill(0);
  for (let k = sizes.length - 2; k >= 0; k--) above[k] = above[k + 1]! + sizes[k + 1]!;
  return above;
}

/** How often a read starts over when a move or a change of shard sizes overlapped it. */
const READ_ATTEMPTS = 8;

/**
 * Answers a BoardQuery on a sharded board: the exact global ranks of docs/scale-out.md.
 * 1. the head (move marker, move epoch, version), 2. every shard's size and the asked players'
 * positions (one script per shard, in parallel: one round trip per node), 3. the ranges that the
 * top, pages and arounds need, spilling from a shard to the next worse one, 4. the head again.
 * A move in flight, a move epoch that changed, or a shard whose size changed between 2 and 3
 * starts the read over, so every member is seen on exactly one shard and counted once.
 */
export async function readShardedBoard(
  redis: Redis,
  b: Board & { season: Sharded },
  q: BoardQuery,
): Promise<BoardAnswer> {
  const season = b.season;
  const keys = shardKeys(season, b.window, b.period);
  const label = boardLabel(b.window, b.period);
  const step = stepOf(season);
  const codec = codecOf(season);
  const head = () =>
    redis.shardedHead(movingKey(season.id), moveEpochKey(season.id), boardVersionsKey(season.id), label);
  const players = [...new Set([...q.playerIds, ...q.arounds.map((a) => a.playerId)])];

  for (let attempt = 1; ; attempt++) {
    const last = attempt >= READ_ATTEMPTS;
    const [moving, epoch, version = 0] = await head();
    if (moving === 1 && !last) {
      await sleep(attempt);
      continue;
    }
    const probes = await Promise.all(keys.map((k) => redis.shardProbe(k, step, ...players)));
    const sizes = probes.map((p) => Number(p[0]));
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
