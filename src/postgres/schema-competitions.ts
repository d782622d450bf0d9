// The competition tables (docs/design.md#scopes, #leagues, #rewards): where players rank besides
// the whole board, their league cohorts and tiers, and the rewards closes grant. Re-exported by
// schema.ts, the one schema module the code imports.
import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { boardWindow, tstz } from './schema-columns.js';

/**
 * Every reward granted (docs/design.md#rewards): one row per idempotency key, written in the
 * transaction that finalizes the season, so exactly once. `published_at` is set once Kafka
 * acknowledged it (the outbox: unpublished rows are sent again after a crash, with the same key).
 */
export const rewards = pgTable(
  'rewards',
  {
    key: text('key').primaryKey(),
    seasonId: integer('season_id').notNull(),
    board: text('board').notNull(),
    window: boardWindow('window').notNull(),
    period: text('period').notNull(),
    scope: text('scope').notNull(),
    playerId: bigint('player_id', { mode: 'bigint' }).notNull(),
    rule: text('rule').notNull(),
    rank: integer('rank').notNull(),
    points: bigint('points', { mode: 'number' }).notNull(),
    reward: jsonb('reward').notNull(),
    grantedAt: tstz('granted_at').notNull().defaultNow(),
    publishedAt: tstz('published_at'),
    claimedAt: tstz('claimed_at'),
  },
  (t) => [
    index('rewards_player').on(t.playerId, t.grantedAt),
    index('rewards_unpublished')
      .on(t.seasonId)
      .where(sql`${t.publishedAt} is null`),
  ],
);

/**
 * The periods whose rewards were granted (docs/design.md#rewards): inserted in the transaction
 * that grants them, so a period's rules are applied once, from one ranking, however often the
 * scheduler looks at it.
 */
export const rewardPeriods = pgTable(
  'reward_periods',
  {
    seasonId: integer('season_id').notNull(),
    board: text('board').notNull(),
    window: boardWindow('window').notNull(),
    period: text('period').notNull(),
    grantedAt: tstz('granted_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.seasonId, t.board, t.window, t.period] })],
);

/**
 * Leagues (docs/design.md#leagues): each player's cohort in a league season, placed at their first
 * result, first come first served within their tier; a cohort is a scope board (`c:<tier>.<n>`).
 */
export const leagueMembers = pgTable(
  'league_members',
  {
    seasonId: integer('season_id').notNull(),
    playerId: bigint('player_id', { mode: 'bigint' }).notNull(),
    tier: integer('tier').notNull(),
    cohort: integer('cohort').notNull(),
  },
  (t) => [primaryKey({ columns: [t.seasonId, t.playerId] })],
);

/** How many players each tier of a league season placed: the next one's cohort is placed / size. */
export const leagueCohorts = pgTable(
  'league_cohorts',
  {
    seasonId: integer('season_id').notNull(),
    tier: integer('tier').notNull(),
    placed: integer('placed').notNull(),
    /**
     * Placed by last season's rank: the cohorts the seeded players fill (ceil(seeds / cohortSize),
     * fixed when the tier's first player is placed); first-come players fill the cohorts after them.
     */
    seededCohorts: integer('seeded_cohorts').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.seasonId, t.tier] })],
);

/** Each player's tier in a league, moved by each season's close (absent: the lowest tier). */
export const leagueTiers = pgTable(
  'league_tiers',
  {
    league: text('league').notNull(),
    playerId: bigint('player_id', { mode: 'bigint' }).notNull(),
    tier: integer('tier').notNull(),
    /**
     * Their place in that tier by the last close's final positions (1: best), for a league placed
     * by rank; null for those who did not play the last season.
     */
    seed: integer('seed'),
  },
  (t) => [primaryKey({ columns: [t.league, t.playerId] }), index('league_tiers_seeds').on(t.league, t.tier, t.seed)],
);

/** Who a league season's close promoted or relegated: written once, in its finalize transaction. */
export const leagueMoves = pgTable(
  'league_moves',
  {
    seasonId: integer('season_id').notNull(),
    playerId: bigint('player_id', { mode: 'bigint' }).notNull(),
    cohort: integer('cohort').notNull(),
    rank: integer('rank').notNull(),
    fromTier: integer('from_tier').notNull(),
    toTier: integer('to_tier').notNull(),
  },
  (t) => [primaryKey({ columns: [t.seasonId, t.playerId] })],
);

/**
 * Where each player ranks besides the whole board (docs/design.md#scopes): a region and groups,
 * set by the trusted server and applied by ingest in Kafka order with the player's results.
 * `prev_*` and `pending` make a move exact across crashes: a change sets pending and remembers
 * the scopes left; ingest clears pending once Redis moved the player's standings, and a replay
 * finding it set moves them again (domain/scopes.ts, service/apply-scopes.ts).
 */
export const playerScopes = pgTable(
  'player_scopes',
  {
    playerId: bigint('player_id', { mode: 'bigint' }).primaryKey(),
    region: text('region'),
    groups: text('groups')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    prevRegion: text('prev_region'),
    prevGroups: text('prev_groups')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    pending: boolean('pending').notNull().default(false),
    updatedAt: tstz('updated_at').notNull().defaultNow(),
  },
  (t) => [
    // The players of a region (and its subdivisions: `region like 'BR-%'`) and of a group, for the
    // scoped reads of boards PostgreSQL ranks (closed seasons, expired periods).
    index('player_scopes_region').on(t.region.op('text_pattern_ops')),
    index('player_scopes_groups').using('gin', t.groups),
  ],
);

/**
 * The scopes of a board's players as they were at its close (docs/design.md#scopes): written in the
 * finalize transaction, so a closed season's scoped reads, group boards and rewards rank players
 * where they played, whatever they moved to since.
 */
export const seasonFinalScopes = pgTable(
  'season_final_scopes',
  {
    seasonId: integer('season_id').notNull(),
    playerId: bigint('player_id', { mode: 'bigint' }).notNull(),
    region: text('region'),
    groups: text('groups').array().notNull(),
  },
  (t) => [primaryKey({ columns: [t.seasonId, t.playerId] })],
);
