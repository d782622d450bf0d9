import { sql } from 'drizzle-orm';
import type { BoardKey } from '../domain/season.js';
import type { RewardRule } from '../domain/rewards.js';
import type { League } from '../domain/leagues.js';
import type { ShardLayout } from '../domain/shards.js';
import {
  type AnyPgColumn,
  bigint,
  boolean,
  check,
  customType,
  date,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  serial,
  smallint,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { boardWindow, tstz } from './schema-columns.js';

export { boardWindow };

export const seasonStatus = pgEnum('season_status', ['SCHEDULED', 'ACTIVE', 'CLOSED']);
export const scoringMode = pgEnum('scoring_mode', ['BEST', 'SUM', 'LAST']);
export const sortOrder = pgEnum('sort_order', ['DESC', 'ASC']);
export const rankStyle = pgEnum('rank_style', ['ORDINAL', 'COMPETITION']);

/** Raw bytes (a digest); postgres.js reads and writes them as Buffers. */
const bytea = customType<{ data: Buffer }>({ dataType: () => 'bytea' });

/** A season is the unit of a board; its score split is fixed at creation. */
export const seasons = pgTable(
  'seasons',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    startsAt: tstz('starts_at').notNull(),
    endsAt: tstz('ends_at').notNull(),
    status: seasonStatus('status').notNull().default('SCHEDULED'),
    scoring: scoringMode('scoring').notNull(),
    sortOrder: sortOrder('sort_order').notNull(),
    rankStyle: rankStyle('rank_style').notNull(),
    maxPointsPerMatch: integer('max_points_per_match').notNull(),
    pointsBits: smallint('points_bits').notNull(),
    timeBits: smallint('time_bits').notNull(),
    timeUnitSeconds: integer('time_unit_seconds').notNull(),
    createdAt: tstz('created_at').notNull().defaultNow(),
    /** Set once closing wrote season_final_standings and removed the Redis boards. */
    finalizedAt: tstz('finalized_at'),
    /** Score-range shards of the season's boards ({bounds, tags}, domain/shards.ts); null: one key per board. */
    shardLayout: jsonb('shard_layout').$type<ShardLayout>(),
    /** The windows whose boards it keeps (SEASON always among them). */
    windows: boardWindow('windows')
      .array()
      .notNull()
      .default(sql`'{SEASON,DAY,WEEK}'::board_window[]`),
    /** Minutes after UTC midnight its DAY, WEEK and MONTH periods turn over. */
    resetOffsetMinutes: integer('reset_offset_minutes').notNull().default(0),
    /** Hours of each CUSTOM period, from starts_at; null: no CUSTOM window. */
    periodHours: integer('period_hours'),
    /** A further board of a season names the season (its first board) here; null on a season's own row. */
    parentId: integer('parent_id').references((): AnyPgColumn => seasons.id),
    /** The board's name within its season. */
    board: text('board').notNull().default('points'),
    /** The stat it ranks (one key). */
    stat: text('stat').notNull().default('points'),
    /** The keys of a multi-key board ([{stat, order, max}], domain/board-keys.ts); null: one key, `stat`. */
    boardKeys: jsonb('board_keys').$type<BoardKey[]>(),
    /** On a season's own row: its reward rules (domain/rewards.ts), granted at its close. */
    rewardRules: jsonb('reward_rules').$type<RewardRule[]>(),
    /** Group boards total each group's best N members' points; null: all of them. */
    groupBestOf: integer('group_best_of'),
    /** On a season's own row in league mode: its league (domain/leagues.ts). */
    league: jsonb('league').$type<League>(),
    /** On a season's own row: at its close the scheduler creates the next one (service/season-rollover.ts). */
    repeats: boolean('repeats').notNull().default(false),
    /** The season this one was created to follow (a repeating season's successor); at most one follows each. */
    follows: integer('follows').references((): AnyPgColumn => seasons.id),
  },
  (t) => [
    check('seasons_ends_after_starts', sql`${t.endsAt} > ${t.startsAt}`),
    check('seasons_split_fits_double', sql`${t.pointsBits} + ${t.timeBits} <= 53`),
    // Also how a season finds its boards (led by parent_id).
    uniqueIndex('seasons_board_name').on(t.parentId, t.board),
    uniqueIndex('seasons_follows').on(t.follows),
  ],
);

/** Display names live here only: Kafka and Redis carry player ids, never personal data. */
export const players = pgTable('players', {
  id: bigint('id', { mode: 'bigint' }).primaryKey(),
  displayName: text('display_name'),
  updatedAt: tstz('updated_at').notNull().defaultNow(),
});

/**
 * Every accepted result, exactly once per season. Partitioned (drizzle/0005_partitioned_history.sql,
 * which drizzle-kit cannot express): by LIST (season_id), each season by RANGE (ended_at) in UTC
 * days, so a season's history is dropped whole and an insert only touches today's indexes. The
 * primary key is the dedup oracle: led by time within a partition, so its hot pages are the last
 * few, however long the history (docs/design.md#storage). The player index serves removals.
 * No foreign key to seasons (nor from standings): the check locked the season's row FOR KEY SHARE
 * once per inserted row, while the consumer has already checked the season.
 */
export const matchResults = pgTable(
  'match_results',
  {
    seasonId: integer('season_id').notNull(),
    endedAt: tstz('ended_at').notNull(),
    matchId: uuid('match_id').notNull(),
    playerId: bigint('player_id', { mode: 'bigint' }).notNull(),
    points: integer('points').notNull(),
    kafkaPartition: integer('kafka_partition').notNull(),
    kafkaOffset: bigint('kafka_offset', { mode: 'bigint' }).notNull(),
    ingestedAt: tstz('ingested_at').notNull().defaultNow(),
    /** What the game server attached to this result (a JSON object of at most 1 KB); null: nothing. */
    metadata: jsonb('metadata'),
  },
  (t) => [
    primaryKey({ columns: [t.seasonId, t.endedAt, t.matchId, t.playerId] }),
    index('match_results_player').on(t.playerId),
    check('match_results_points_non_negative', sql`${t.points} >= 0`),
  ],
);

/**
 * The payload a matchId was first submitted with (a SHA-256 of domain/submission.ts claimText),
 * claimed before producing: a second submission of the matchId is accepted only with the same
 * payload (a retry), anything else is a CONFLICT, across every API process. Each claim is two
 * rows, on the UTC day of its endedAt and the day after, so two payloads whose endedAt lie less
 * than a day apart always meet on a key (postgres/match-claims.ts). Partitioned by RANGE (day).
 */
export const matchClaims = pgTable(
  'match_claims',
  {
    day: date('day', { mode: 'string' }).notNull(),
    matchId: uuid('match_id').notNull(),
    payloadHash: bytea('payload_hash').notNull(),
    claimedAt: tstz('claimed_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.day, t.matchId] })],
);

/**
 * What Redis mirrors: one row per player per board. `period` is '' for SEASON,
 * 'yyyy-mm-dd' for DAY and 'YYYY-Www' for WEEK (src/domain/windows.ts).
 * points is bigint so a SUM total can never overflow the column and stall ingest.
 */
export const standings = pgTable(
  'standings',
  {
    seasonId: integer('season_id').notNull(),
    window: boardWindow('window').notNull(),
    period: text('period').notNull(),
    playerId: bigint('player_id', { mode: 'bigint' }).notNull(),
    points: bigint('points', { mode: 'number' }).notNull(),
    achievedAt: tstz('achieved_at').notNull(),
    updatedAt: tstz('updated_at').notNull().defaultNow(),
    /** The metadata of the result that set this standing (the one whose endedAt is achieved_at). */
    metadata: jsonb('metadata'),
    /**
     * On a board whose keys aggregate (domain/key-aggregates.ts): each key's value, when each was
     * reached (epoch ms), and when the metadata's result ended; null on any other board.
     */
    keyState: bigint('key_state', { mode: 'number' }).array(),
  },
  (t) => [primaryKey({ columns: [t.seasonId, t.window, t.period, t.playerId] })],
);

/**
 * Every player's final place on every board of a closed season, computed in PostgreSQL from
 * standings in exactly Redis's order; reads of a closed season come from here.
 * `position` is the 0-based place in board order (ORDINAL rank - 1), for paging.
 */
export const seasonFinalStandings = pgTable(
  'season_final_standings',
  {
    seasonId: integer('season_id')
      .notNull()
      .references(() => seasons.id),
    window: boardWindow('window').notNull(),
    period: text('period').notNull(),
    playerId: bigint('player_id', { mode: 'bigint' }).notNull(),
    position: integer('position').notNull(),
    rank: integer('rank').notNull(),
    points: bigint('points', { mode: 'number' }).notNull(),
    achievedAt: tstz('achieved_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.seasonId, t.window, t.period, t.playerId] }),
    uniqueIndex('season_final_standings_position').on(t.seasonId, t.window, t.period, t.position),
  ],
);

/**
 * A season whose raw results were archived (service/archive-history.ts): the files and their
 * manifest are verified before `verified_at` is set, and only then are its partitions dropped.
 */
export const seasonArchives = pgTable('season_archives', {
  seasonId: integer('season_id')
    .primaryKey()
    .references(() => seasons.id),
  dir: text('dir').notNull(),
  files: integer('files').notNull(),
  rows: bigint('rows', { mode: 'number' }).notNull(),
  /** SHA-256 of manifest.json, which holds each file's own SHA-256 and row count. */
  manifestSha256: text('manifest_sha256').notNull(),
  verifiedAt: tstz('verified_at').notNull(),
  droppedAt: tstz('dropped_at'),
});

/**
 * Rank history (docs/design.md#rank-history): each player of a season gets a dense slot the first
 * time a snapshot ranks them, so a snapshot is an array of ranks indexed by slot.
 */
export const rankSlots = pgTable(
  'rank_slots',
  {
    seasonId: integer('season_id').notNull(),
    playerId: bigint('player_id', { mode: 'bigint' }).notNull(),
    slot: integer('slot').notNull(),
  },
  (t) => [primaryKey({ columns: [t.seasonId, t.playerId] })],
);

/**
 * A snapshot of the SEASON board at a UTC midnight: `ranks` holds RANK_CHUNK_SLOTS slots from
 * `chunk * RANK_CHUNK_SLOTS` on, 4 bytes each (big-endian, 0: not ranked). Stored uncompressed out
 * of line (STORAGE EXTERNAL, in the migration) so reading one player's 4 bytes reads one TOAST page.
 * Chunk 0 is always written: it marks the snapshot as taken.
 */
export const rankSnapshots = pgTable(
  'rank_snapshots',
  {
    seasonId: integer('season_id').notNull(),
    boundary: tstz('boundary').notNull(),
    chunk: integer('chunk').notNull(),
    /** When the snapshot's transaction began: the ranks are the board as ingest had applied it then. */
    takenAt: tstz('taken_at').notNull(),
    /** Players ranked in this chunk; a snapshot's are the sum over its chunks. */
    players: integer('players').notNull(),
    ranks: bytea('ranks').notNull(),
  },
  (t) => [primaryKey({ columns: [t.seasonId, t.boundary, t.chunk] })],
);

/** Players barred from a season's boards (cheaters); their later results are refused. */
export const blockedPlayers = pgTable(
  'blocked_players',
  {
    seasonId: integer('season_id')
      .notNull()
      .references(() => seasons.id),
    playerId: bigint('player_id', { mode: 'bigint' }).notNull(),
    reason: text('reason').notNull(),
    blockedAt: tstz('blocked_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.seasonId, t.playerId] })],
);

/**
 * Players hidden from a season's public boards pending review (docs/design.md#moderation): their
 * results are still stored and their standings kept, but no board, scope board, rebuild, snapshot or
 * final standing shows them until they are unhidden. Keyed by the season's own row.
 */
export const hiddenPlayers = pgTable(
  'hidden_players',
  {
    seasonId: integer('season_id')
      .notNull()
      .references(() => seasons.id),
    playerId: bigint('player_id', { mode: 'bigint' }).notNull(),
    reason: text('reason').notNull(),
    hiddenAt: tstz('hidden_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.seasonId, t.playerId] })],
);

/**
 * Who did what, when, with which arguments, and how it ended: every admin action, from GraphQL or
 * the CLI (postgres/audit-log.ts). Append-only: triggers (drizzle/0010) refuse UPDATE, DELETE and
 * TRUNCATE.
 */
export const adminAudit = pgTable('admin_audit', {
  id: serial('id').primaryKey(),
  at: tstz('at').notNull().defaultNow(),
  actor: text('actor').notNull(),
  action: text('action').notNull(),
  seasonId: integer('season_id'),
  playerId: bigint('player_id', { mode: 'bigint' }),
  matchId: uuid('match_id'),
  reason: text('reason').notNull(),
  details: jsonb('details'),
  /** 'ok', or the error code the action failed with. */
  outcome: text('outcome').notNull().default('ok'),
});

/** API keys: only a SHA-256 of the key is stored; the key is shown once. */
export const apiKeys = pgTable('api_keys', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  keyHash: text('key_hash').notNull().unique(),
  scopes: text('scopes').array().notNull(),
  createdAt: tstz('created_at').notNull().defaultNow(),
  /** When it stops working: now for a revoke, later for a rotation's grace period; null: never. */
  revokedAt: tstz('revoked_at'),
  /** When a request last used it, to the minute (written at most once a minute per key). */
  lastUsedAt: tstz('last_used_at'),
});

// The competition tables (scopes, leagues, rewards): their own file, read by drizzle-kit with this one.
export * from './schema-competitions.js';
// Operations' tables (DLQ replays): their own file too.
export * from './schema-operations.js';
