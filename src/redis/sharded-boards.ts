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
import type { BoardAnswer, BoardQuery } from '../service/leaderboard-reads.js';
import { unavailable } from '../domain/errors.js';
import {
  boardLabel,
  boardVersionsKey,
  moveEpochKey,
  moverLockKey,
  movingKey,
  rebuildCopyKey,
  rebuildMarkerKey,
  shardBoardKey,
  shardSizesKey,
  updatesChannel,
} from './keys.js';
import { dbOf } from './client.js';

export type Sharded = Season & { shards: ShardLayout };

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
export async function withMoverLock<T>(redis: Redis, seasonId: number, fn: () => Promise<T>): Promise<T> {
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

/** A live board's shards and where their sizes are kept (the season's slot); rebuild copies keep none. */
export interface KeptSizes {
  key: string;
  shards: readonly string[];
  expireAt: number;
}

export function keptSizes(season: Sharded, window: Window, period: string, expireAt: number): KeptSizes {
  const key = shardSizesKey(season.id, boardLabel(window, period));
  return { key, shards: shardKeys(season, window, period), expireAt };
}

/**
 * Runs `fn` (which moves members between shards, or adds or removes some) inside a move window:
 * readers that overlap it start over (readShardedBoard). With `kept`, the board's kept sizes are
 * deleted when the window opens and written again, counted under the mover lock (no one else
 * changes membership), when it closes: a reader that saw no window around its read saw exact
 * sizes. Left open on a failure, the marker expires and the sizes stay absent (readers count
 * every shard) until the board's next window.
 */
export async function inMoveWindow<T>(
  redis: Redis,
  seasonId: number,
  fn: () => Promise<T>,
  kept: KeptSizes | null = null,
): Promise<T> {
  const open = redis.multi().set(movingKey(seasonId), '1', 'PX', MOVE_TTL_MS).incr(moveEpochKey(seasonId));
  if (kept) open.del(kept.key);
  await open.exec();
  const result = await fn();
  const close = redis.multi();
  if (kept) {
    const sizes = await Promise.all(kept.shards.map((k) => redis.zcard(k)));
    close.set(kept.key, sizes.join(','));
    if (kept.expireAt > 0) close.expireat(kept.key, kept.expireAt);
  }
  await close.del(movingKey(seasonId)).incr(moveEpochKey(seasonId)).exec();
  return result;
}

/** Counts a board's shards again into its kept sizes (a repair, or after a bulk load), under the mover lock. */
export async function recountShardSizes(redis: Redis, season: Sharded, kept: KeptSizes): Promise<void> {
  await withMoverLock(redis, season.id, () => inMoveWindow(redis, season.id, async () => {}, kept));
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

/** The rebuild copies of a board's shards (same slots as the shards). */
export const copyKeys = (keys: readonly string[]) => keys.map(rebuildCopyKey);

/** Unix seconds at which a rebuild copy written now expires, the marker's TTL `ttlMs` from now. */
export const copyExpireAt = (ttlMs: number) => Math.ceil((Date.now() + ttlMs) / 1000);

/**
 * Writes one board's standings (member, composite pairs), only ever raising a score, and returns
 * how many rose. While a rebuild of the season runs, its copy of the board gets them first (so a
 * write never lands on the live shards before a swap and on the copies after it). Then the board's
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
  const byShard = keys.map((): string[] => []);
  for (const [member, score] of pairs) byShard[shardOf(lowers, score)]!.push(member, codec.toRedis(score));
  // Read after PostgreSQL committed these standings: no marker means the rebuild's snapshot has them.
  const rebuildMs = await redis.pttl(rebuildMarkerKey(season.id));
  if (rebuildMs > 0) await raiseOnShards(redis, season, copyKeys(keys), byShard, copyExpireAt(rebuildMs), null);
  const kept = keptSizes(season, window, period, expireAt);
  const changes = await raiseOnShards(redis, season, keys, byShard, expireAt, kept);
  if (changes.length > 0) await announce(redis, season, window, period, keys, changes, '');
  return changes.length;
}

/**
 * Raises members on a board's shards (`keys`, the live ones or a rebuild's copies), `byShard[k]`
 * the member, score pairs of shard k. Members stay on their shard in one script call per shard;
 * members new to the shard their score belongs to (new players, and players crossing into a
 * better range) go through the season's mover, which checks every shard and moves them (`place`).
 */
async function raiseOnShards(
  redis: Redis,
  season: Sharded,
  keys: readonly string[],
  byShard: ReadonlyArray<readonly string[]>,
  expireAt: number,
  kept: KeptSizes | null,
): Promise<Change[]> {
  const step = stepOf(season);
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
    changes.push(...(await withMoverLock(redis, season.id, () => place(redis, season, keys, absent, expireAt, kept))));
  }
  return changes;
}

/**
 * Places members that were not on the shard of their new score, holding the mover lock (so two
 * movers never interleave on a player). Reads every shard's score of them; a member on no shard is
 * added; a member already holding an equal or better score elsewhere is left alone (ZADD GT
 * across shards: a replayed or stale standing changes nothing); any other is moved: added to its
 * new shard, then removed from every other, inside a move window that readers detect
 * (`moving` marker and move epoch, shardedHead-4.lua), so no reader sees it on two shards or none.
 * On a live board (`kept`: not a rebuild's copies) new members open a window too: it keeps the
 * board's shard sizes exact.
 */
export async function place(
  redis: Redis,
  season: Sharded,
  keys: readonly string[],
  absent: ReadonlyArray<readonly [string, string, number]>,
  expireAt: number,
  kept: KeptSizes | null,
): Promise<Change[]> {
  const held = await heldScores(
    redis,
    keys,
    absent.map(([m]) => m),
  );
  const adds = keys.map((): string[] => []);
  const removes = keys.map((): string[] => []);
  const oldOf = new Map<string, string>();
  absent.forEach(([member, score, target], i) => {
    const best = bestHeld(held, i);
    if (best !== null && Number(best) >= Number(score)) return;
    adds[target]!.push(member, score);
    held.forEach((s, k) => s[i] != null && k !== target && removes[k]!.push(member));
    if (best !== null) oldOf.set(member, best);
  });
  const changes: Change[] = [];
  const write = async () => {
    await Promise.all(
      adds.map(async (args, k) => {
        if (args.length === 0) return;
        const [changed] = await redis.shardWrite(keys[k]!, String(expireAt), stepOf(season), 'any', ...args);
        readChanges(changed, k, changes);
      }),
    );
    await Promise.all(removes.map((r, k) => (r.length > 0 ? redis.zrem(keys[k]!, ...r) : Promise.resolve(0))));
  };
  // On copies, only a member that leaves a shard is a move; new members touch one shard atomically.
  if (kept ? adds.some((a) => a.length > 0) : removes.some((r) => r.length > 0)) {
    await inMoveWindow(redis, season.id, write, kept);
  } else await write();
  for (const c of changes) c.old = oldOf.get(c.member) ?? c.old;
  return changes;
}

/** Each member's score on each shard (`[k][i]`, null: not there), read with one ZMSCORE per shard. */
export function heldScores(redis: Redis, keys: readonly string[], members: readonly string[]) {
  return Promise.all(keys.map((key) => redis.zmscore(key, ...members)));
}

/**
 * Member `i`'s score as reconcile compares it: null on no shard, its score on one, and on several
 * (a mover died between its two writes) every score joined with ','. That never equals a score
 * PostgreSQL implies, so such a member counts as different and a repair leaves it on one shard.
 */
export function shownScore(held: ReadonlyArray<ReadonlyArray<string | null>>, i: number): string | null {
  const on = held.flatMap((s) => (s[i] == null ? [] : [s[i]!]));
  return on.length === 0 ? null : on.join(',');
}

/** The best score of member `i` over every shard (on several only after a mover died mid-move). */
export function bestHeld(held: ReadonlyArray<ReadonlyArray<string | null>>, i: number): string | null {
  let best: string | null = null;
  for (const s of held) if (s[i] != null && (best === null || Number(s[i]) > Number(best))) best = s[i]!;
  return best;
}

/**
 * Sets members exactly on a board's shards (`keys`), lower scores included, or removes them (score
 * ''), holding the mover lock: each goes to the shard of its score and leaves every other, inside
 * a move window (on copies, only when any leaves a shard). `held` is what they held on each shard when read under
 * this lock; a member that an ingest raise changed since is left as the raise made it and comes
 * back in `conflicts` (shardSet-1.lua). Returns the changes, removals from a shard included.
 */
export async function setOnShards(
  redis: Redis,
  season: Sharded,
  keys: readonly string[],
  pairs: ReadonlyArray<readonly [string, string]>,
  held: ReadonlyArray<ReadonlyArray<string | null>>,
  expireAt: number,
  kept: KeptSizes | null,
): Promise<{ changes: Change[]; conflicts: Set<string> }> {
  const lowers = shardLowers(season);
  const codec = codecOf(season);
  const step = stepOf(season);
  const leaves = keys.map((): string[] => []);
  const sets = keys.map((): string[] => []);
  pairs.forEach(([member, score], i) => {
    const target = score === '' ? -1 : shardOf(lowers, codec.fromRedis(score));
    held.forEach((s, k) => s[i] != null && k !== target && leaves[k]!.push(member, s[i]!, ''));
    if (target >= 0) sets[target]!.push(member, held[target]![i] ?? '', score);
  });
  const changes: Change[] = [];
  const conflicts = new Set<string>();
  const run = async (triples: ReadonlyArray<readonly string[]>) =>
    Promise.all(
      triples.map(async (args, k) => {
        // A member that could not leave a shard stays there: it must not be written elsewhere.
        const todo = args.flatMap((a, j) => (j % 3 === 0 && !conflicts.has(a) ? args.slice(j, j + 3) : []));
        if (todo.length === 0) return;
        const [changed, conflicting] = await redis.shardSet(keys[k]!, String(expireAt), step, ...todo);
        readChanges(changed, k, changes);
        for (const m of conflicting) conflicts.add(m);
      }),
    );
  const write = async () => {
    await run(leaves);
    await run(sets);
  };
  if (kept || leaves.some((l) => l.length > 0)) await inMoveWindow(redis, season.id, write, kept);
  else await write();
  return { changes, conflicts };
}

// An exact write retries members that a concurrent ingest raise changed this many times.
const SET_ATTEMPTS = 10;

/**
 * Sets members' scores exactly on a sharded board, lower ones included, or removes them (null):
 * the explicit path of player removal, never ingest. Holding the mover lock, each member is written
 * to the shard of its score and removed from every other, inside a move window (setOnShards), the
 * rebuild copies first while a rebuild runs; one "reset" event follows. Returns how many changed.
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
  const keys = shardKeys(season, window, period);
  const exact = pairs.map(([m, score]): [string, string] => [m, score === null ? '' : codec.toRedis(score)]);
  const changes = await withMoverLock(redis, season.id, async () => {
    const rebuildMs = await redis.pttl(rebuildMarkerKey(season.id));
    if (rebuildMs > 0) await setUntilDone(copyKeys(keys), copyExpireAt(rebuildMs), null);
    return setUntilDone(keys, expireAt, keptSizes(season, window, period, expireAt));
  });
  return announceExact(redis, season, window, period, keys, changes, staying(exact));

  async function setUntilDone(on: readonly string[], at: number, kept: KeptSizes | null): Promise<Change[]> {
    const out: Change[] = [];
    let todo = exact;
    for (let attempt = 1; todo.length > 0; attempt++) {
      if (attempt > SET_ATTEMPTS)
        throw unavailable(`season ${season.id}: the exact write of ${window} ${period} kept racing ingest`);
      const held = await heldScores(
        redis,
        on,
        todo.map(([m]) => m),
      );
      const { changes, conflicts } = await setOnShards(redis, season, on, todo, held, at, kept);
      out.push(...changes);
      todo = todo.filter(([m]) => conflicts.has(m));
    }
    return out;
  }
}

/**
 * Reconcile's settle step on a sharded board (board-inspector.ts): holding the mover lock, reads
 * the members' scores (shownScore), asks `decide` which [member, score] pairs to write
 * (score '' removes) and, with `write`, writes them with setOnShards. A member that an ingest
 * raise changed in between is left as it is, for the next run. Returns how many entries changed.
 */
export async function settleShardedBoard(
  redis: Redis,
  season: Sharded,
  window: Window,
  period: string,
  members: readonly string[],
  decide: (scores: Array<string | null>) => Promise<Array<[string, string]>>,
  write: boolean,
  expireAt: number,
): Promise<number> {
  const keys = shardKeys(season, window, period);
  const changes = await withMoverLock(redis, season.id, async () => {
    const held = await heldScores(redis, keys, members);
    const pairs = await decide(members.map((_, i) => shownScore(held, i)));
    if (!write || pairs.length === 0) return { pairs, changes: [] };
    const index = new Map(members.map((m, i) => [m, i]));
    const heldOfPairs = held.map((s) => pairs.map(([m]) => s[index.get(m)!] ?? null));
    const kept = keptSizes(season, window, period, expireAt);
    return { pairs, changes: (await setOnShards(redis, season, keys, pairs, heldOfPairs, expireAt, kept)).changes };
  });
  return announceExact(redis, season, window, period, keys, changes.changes, staying(changes.pairs));
}

/** The members of exact writes that stay on the board (written with a score, not removed). */
const staying = (pairs: ReadonlyArray<readonly [string, string]>) =>
  new Set(pairs.filter(([, score]) => score !== '').map(([m]) => m));

/**
 * Announces exact writes as one "reset" event and returns how many members changed: a member that
 * changed shard left one shard and was set on another, one change from its old score to its new.
 * A member of `stays` that only left a shard was on two (a mover died mid-move): it counts, and
 * the version rises (others' ranks changed), but its entry did not change, so it is not listed.
 */
async function announceExact(
  redis: Redis,
  season: Sharded,
  window: Window,
  period: string,
  keys: readonly string[],
  changes: readonly Change[],
  stays: ReadonlySet<string>,
): Promise<number> {
  const left = new Map(changes.filter((c) => c.score === '').map((c) => [c.member, c.old]));
  const set = new Set(changes.filter((c) => c.score !== '').map((c) => c.member));
  const merged = changes
    .filter((c) => c.score !== '' || !set.has(c.member))
    .map((c) => (c.score !== '' && c.old === '' ? { ...c, old: left.get(c.member) ?? '' } : c));
  const listed = merged.filter((c) => c.score !== '' || !stays.has(c.member));
  if (merged.length > 0) await announce(redis, season, window, period, keys, listed, 'reset');
  return merged.length;
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
 * 1. the head (move marker, move epoch, version, the shards' kept sizes), 2. when players are
 * asked (or no sizes are kept), every shard's size and the players' positions (one script per
 * shard, in parallel: one round trip per node), 3. the ranges that the top, pages and arounds
 * need, spilling from a shard to the next worse one, 4. the head again. A move in flight, a move
 * epoch that changed, or a shard whose size is not the one used starts the read over, so every
 * member is seen on exactly one shard and counted once; kept sizes that a shard contradicts (a
 * failover of the season's master brought older ones back) are not used again by this read.
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
  const sizesKey = shardSizesKey(season.id, label);
  const head = () =>
    redis.shardedHead(movingKey(season.id), moveEpochKey(season.id), boardVersionsKey(season.id), sizesKey, label);
  const players = [...new Set([...q.playerIds, ...q.arounds.map((a) => a.playerId)])];
  let trustKept = true;

  for (let attempt = 1; ; attempt++) {
    const last = attempt >= READ_ATTEMPTS;
    const [moving, epoch, version = 0, kept = ''] = await head();
    if (moving === 1 && !last) {
      await sleep(attempt);
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
