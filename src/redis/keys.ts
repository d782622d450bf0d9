// Every Redis key and channel name of ladder is built here, nowhere else.
// All keys of a season share the hash tag {s<id>} so one Lua script may touch them together
// in Redis Cluster. No ioredis keyPrefix: it does not prefix keys inside scripts (BullMQ #1232).
import type { BoardOfId } from '../domain/board.js';
import type { Window } from '../domain/season.js';

const tag = (seasonId: number) => `lb:{s${seasonId}}`;

/** The letter of a window's boards in their keys (SEASON has none). */
const WINDOW_LETTER = { DAY: 'd', WEEK: 'w', MONTH: 'm', CUSTOM: 'c' } as const;
const LETTER_WINDOW = { d: 'DAY', w: 'WEEK', m: 'MONTH', c: 'CUSTOM' } as const;
// A period in a key: a CUSTOM one ('2026-12-06T04:00') holds the only colon a period may have.
const PERIOD = String.raw`[^:@]+(?::\d{2})?`;
const WINDOW_KEY = new RegExp(`^([dwmc]):(${PERIOD})$`);
const SHARD_WINDOW_KEY = new RegExp(String.raw`^lb:\{([^}]+)\}:([dwmc]):(${PERIOD})$`);
const SCOPE_KEY = new RegExp(
  String.raw`^(?::([dwmc]):(${PERIOD}))?@(r:[A-Z]{2}(?:-[A-Z0-9]{1,3})?|g:[A-Za-z0-9_.-]{1,64}|c:\d+\.\d+)$`,
);
type PeriodBoard = { window: (typeof LETTER_WINDOW)[keyof typeof LETTER_WINDOW]; period: string };

/**
 * The ZSET of one board: `lb:{s1}`, `lb:{s1}:d:2026-11-30`, `lb:{s1}:w:2026-W49`, `lb:{s1}:m:2026-11`,
 * `lb:{s1}:c:2026-12-06T04:00`;
 * within a scope, `@<scope>` after it (`lb:{s1}@r:BR`, `lb:{s1}:d:2026-11-30@g:clan7`).
 */
export function boardKey(board: BoardOfId): string {
  const seasonTag = tag(board.season.id);
  const key = board.window === 'SEASON' ? seasonTag : `${seasonTag}:${WINDOW_LETTER[board.window]}:${board.period}`;
  return board.scope ? `${key}@${board.scope}` : key;
}

/**
 * The group board of a board (docs/design.md#group-boards): groups ranked by their members' total,
 * `lb:{s1}@groups`, `lb:{s1}:d:2026-11-30@groups` (no scope has this name: a scope has a colon).
 */
export function groupsKey(board: BoardOfId): string {
  return `${boardKey({ season: board.season, window: board.window, period: board.period })}@groups`;
}

/**
 * The ZSET of one score-range shard of a board (docs/scale-out.md): `lb:{<tag>}`, `lb:{<tag>}:d:...`,
 * `lb:{<tag>}:w:...`, where tag (`s<id>.<k>[.<salt>]`, redis/shard-placement.ts) puts the shard's
 * keys in one slot and the season's shards on different masters.
 */
export function shardBoardKey(shardTag: string, window: Window, period: string): string {
  const key = `lb:{${shardTag}}`;
  return window === 'SEASON' ? key : `${key}:${WINDOW_LETTER[window]}:${period}`;
}

/** SCAN pattern of every shard key of a sharded season (`lb:{s1.` never matches s10's). */
export function shardKeysPattern(seasonId: number): string {
  return `lb:{s${seasonId}.*`;
}

/** Held (SET NX PX) by the one process placing members that are new to their shard in a sharded season. */
export function moverLockKey(seasonId: number): string {
  return `${tag(seasonId)}:mover`;
}

/** Exists (with a TTL) while members move between shards of a sharded season; readers then wait. */
export function movingKey(seasonId: number): string {
  return `${tag(seasonId)}:moving`;
}

/** A counter raised when a move between shards starts and when it ends: readers compare it before and after. */
export function moveEpochKey(seasonId: number): string {
  return `${tag(seasonId)}:moves`;
}

/**
 * The sizes of a sharded board's shards, worst range first, comma-separated (`"120,97,3"`): in the
 * season's slot, so a reader gets them with the move epoch in one call. Written by the mover when
 * it closes a move window (shard-mover.ts), deleted when it opens one: absent, readers count.
 */
export function shardSizesKey(seasonId: number, label: string): string {
  return `${tag(seasonId)}:sizes:${label}`;
}

/** An automatic persisted query's text by its SHA-256 (hex), shared by the API processes (persisted-query.ts). */
export function persistedQueryKey(sha256Hash: string): string {
  return `ladder:apq:${sha256Hash}`;
}

/** Exists while a rebuild of the season runs; ingest then writes the rebuild copies too. */
export function rebuildMarkerKey(seasonId: number): string {
  return `${tag(seasonId)}:rebuilding`;
}

/**
 * The versions of a season's boards: a hash, board label -> a counter raised by every script
 * that changes the board (applyStandings, setStandings, swapBoard) and returned by every read.
 */
export function boardVersionsKey(seasonId: number): string {
  return `${tag(seasonId)}:versions`;
}

/**
 * Present while Redis holds every board (service/board-restore.ts): an empty Redis lacks it, and
 * its absence starts a rebuild of every ACTIVE season from PostgreSQL.
 */
export function boardsMarkerKey(): string {
  return 'ladder:boards';
}

/** The copy of a board a rebuild fills before swapping it in. */
export function rebuildCopyKey(board: string): string {
  return `${board}:rebuild`;
}

/** Where the swapped-out board waits for its asynchronous UNLINK. */
export function retiredKey(board: string): string {
  return `${board}:retired`;
}

// Pub/sub channels are global to a Redis server, unlike keys, which live in one database: every
// channel carries the database number, so deployments (or tests and benchmarks) sharing a server
// on different databases never hear each other's events.

/** Pub/sub channel of a season's board updates in database `db` (payload: see applyStandings-5.lua). */
export function updatesChannel(db: number, seasonId: number): string {
  return `ladder:${db}:updates:s${seasonId}`;
}

/** Pub/sub channel of display-name changes in database `db`: a JSON list of player ids. */
export function namesChannel(db: number): string {
  return `ladder:${db}:names`;
}

/** Pub/sub channel of granted rewards in database `db`: a JSON list of rewards (domain/rewards.ts). */
export function rewardsChannel(db: number): string {
  return `ladder:${db}:rewards`;
}

/** Pattern matching every season's updates channel of database `db`. */
export function allUpdatesPattern(db: number): string {
  return `ladder:${db}:updates:s*`;
}

/** The season id of an updates channel name (NaN for any other channel). */
export function seasonOfChannel(channel: string): number {
  const m = /^ladder:\d+:updates:s(\d+)$/.exec(channel);
  return m ? Number(m[1]) : Number.NaN;
}

/** Board label carried in update events: "SEASON", "DAY:2026-11-30", "WEEK:2026-W49", "SEASON@r:BR". */
export function boardLabel(board: BoardOfId): string {
  const label = board.window === 'SEASON' ? 'SEASON' : `${board.window}:${board.period}`;
  return board.scope ? `${label}@${board.scope}` : label;
}

/** SCAN pattern of a season's period boards (and their scratch keys: windowBoardOfKey tells them apart). */
export function windowBoardsPattern(seasonId: number): string {
  return `${tag(seasonId)}:*`;
}

/** The period board (DAY, WEEK, MONTH, CUSTOM) a key of `seasonId` names; undefined for any other (SEASON, copies). */
export function windowBoardOfKey(seasonId: number, key: string): PeriodBoard | undefined {
  const prefix = `${tag(seasonId)}:`;
  if (!key.startsWith(prefix)) return undefined;
  const m = WINDOW_KEY.exec(key.slice(prefix.length));
  if (!m) return undefined;
  return { window: LETTER_WINDOW[m[1] as keyof typeof LETTER_WINDOW], period: m[2]! };
}

/** The period board a shard key of a season with these shard tags names, or undefined (SEASON shards, copies). */
export function windowBoardOfShardKey(tags: readonly string[], key: string): PeriodBoard | undefined {
  const m = SHARD_WINDOW_KEY.exec(key);
  if (!m || !tags.includes(m[1]!)) return undefined;
  return { window: LETTER_WINDOW[m[2] as keyof typeof LETTER_WINDOW], period: m[3]! };
}

/** SCAN pattern of a season's scope boards (and of whatever else has an `@`: scopeBoardOfKey tells). */
export function scopeBoardsPattern(seasonId: number): string {
  return `${tag(seasonId)}*@*`;
}

/**
 * The scope board a key of `seasonId` names (`lb:{s1}@r:BR`, `lb:{s1}:d:2026-11-30@g:wolves`,
 * `lb:{s1}@c:0.3`), or undefined for any other key (group boards, rebuild copies).
 */
export function scopeBoardOfKey(seasonId: number, key: string): (Partial<PeriodBoard> & { scope: string }) | undefined {
  const prefix = tag(seasonId);
  if (!key.startsWith(prefix)) return undefined;
  const m = SCOPE_KEY.exec(key.slice(prefix.length));
  if (!m) return undefined;
  return m[1]
    ? { window: LETTER_WINDOW[m[1] as keyof typeof LETTER_WINDOW], period: m[2]!, scope: m[3]! }
    : { scope: m[3]! };
}

/** SCAN pattern of every key of a season (boards, rebuild copies and markers): `lb:{s1}*`. */
export function seasonKeysPattern(seasonId: number): string {
  // Braces are literal in Redis glob patterns; `}` right after the id keeps s1 from matching s10.
  return `${tag(seasonId)}*`;
}
