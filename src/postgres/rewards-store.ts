import type postgres from 'postgres';
import { boardName, seasonIdOf, type Season, type Window } from '../domain/season.js';
import type { Reward, RewardRule } from '../domain/rewards.js';
import type { Sql, Tx } from './client.js';
import { cohortScopeOfRow, scopeRows, scopesOfRow } from './player-scopes-store.js';
import { rankedStandings } from './ranked-standings.js';

type Fragment = postgres.Fragment;

interface RewardRow {
  key: string;
  season_id: number;
  board: string;
  window: string;
  period: string;
  scope: string;
  player_id: string;
  rule: string;
  rank: number;
  points: string;
  reward: Record<string, unknown>;
  granted_ms: string;
  claimed_ms: string | null;
}

// Instants as epoch ms: this client leaves timestamptz values as text.
const COLUMNS = `key, season_id, board, "window", period, scope, player_id::text as player_id, rule, rank,
  points::text as points, reward, floor(extract(epoch from granted_at) * 1000)::int8::text as granted_ms,
  floor(extract(epoch from claimed_at) * 1000)::int8::text as claimed_ms`;

const toReward = (r: RewardRow): Reward => ({
  key: r.key,
  seasonId: r.season_id,
  board: r.board,
  window: r.window,
  period: r.period,
  scope: r.scope,
  playerId: r.player_id,
  rule: r.rule,
  rank: r.rank,
  points: Number(r.points),
  reward: r.reward,
  grantedAt: new Date(Number(r.granted_ms)),
  claimedAt: r.claimed_ms === null ? null : new Date(Number(r.claimed_ms)),
});

/** The rules of a board's season (they live on the season's row) that rank by this board in `window`. */
async function rulesOf(tx: Tx, board: Season, window: Window): Promise<RewardRule[]> {
  const [row] = await tx<Array<{ rules: RewardRule[] | null }>>`
    select reward_rules as rules from seasons where id = ${seasonIdOf(board)}`;
  return (row?.rules ?? []).filter((r) => r.board === boardName(board) && (r.window ?? 'SEASON') === window);
}

/**
 * Grants the SEASON rules that rank by this board (a season's row or a further board's), from its
 * final standings, in the transaction that wrote them (season-lifecycle-store.ts finalize): so
 * every reward exists exactly when its board is final, once per key. Returns how many.
 */
export async function grantBoardRewards(tx: Tx, board: Season): Promise<number> {
  const source = tx`select player_id, points, position, rank from season_final_standings
                    where season_id = ${board.id} and "window" = 'SEASON' and period = ''`;
  let granted = 0;
  for (const rule of await rulesOf(tx, board, 'SEASON')) granted += await grant(tx, board, rule, 'SEASON', '', source);
  return granted;
}

/**
 * Grants the rules of one ended DAY, WEEK or MONTH period of a board, from its standings ranked as
 * Redis ranks them, once: the period's row in reward_periods is written in the same transaction,
 * and a period that has one is left alone. Returns how many were granted, or null when the period
 * had been granted before.
 */
export function grantPeriodRewards(sql: Sql, board: Season, window: Window, period: string): Promise<number | null> {
  return sql.begin(async (tx) => {
    const rules = await rulesOf(tx, board, window);
    const marked = await tx`
      insert into reward_periods (season_id, board, "window", period)
      values (${seasonIdOf(board)}, ${boardName(board)}, ${window}::board_window, ${period})
      on conflict do nothing returning 1`;
    if (marked.length === 0) return null;
    const source = tx`select player_id, points, position, rank from (${rankedStandings(tx, { season: board, window, period })}) r`;
    let granted = 0;
    for (const rule of rules) granted += await grant(tx, board, rule, window, period, source);
    return granted;
  }) as Promise<number | null>;
}

/**
 * One rule's grants from a ranked board (`source`: player_id, points, position, rank), each under
 * its idempotency key (`on conflict do nothing` guards a key two passes could not share anyway).
 * Players blocked in the season get nothing.
 */
async function grant(tx: Tx, board: Season, rule: RewardRule, window: Window, period: string, source: Fragment) {
  const seasonId = seasonIdOf(board);
  const rows = await tx`
    with ranked as (${rankedFor(tx, board, rule, source, window === 'SEASON')}),
    kept as (select * from ranked
             where player_id not in (select player_id from blocked_players where season_id = ${seasonId})
               and ${placesOf(tx, rule)})
    insert into rewards (key, season_id, board, "window", period, scope, player_id, rule, rank, points, reward)
    select concat_ws('/', ${seasonId}::int4, ${rule.board}::text, ${window}::text, ${period}::text, scope, player_id, ${rule.name}::text),
           ${seasonId}, ${rule.board}, ${window}::board_window, ${period}, scope, player_id, ${rule.name}, rank, points,
           ${JSON.stringify(rule.reward)}::jsonb
    from kept
    on conflict (key) do nothing
    returning 1`;
  return rows.length;
}

/**
 * A ranked board's players with each one's rank and the size of what they are ranked in (`n`):
 * the whole board, or each region, group or league cohort for a rule `per` one (ranked again in
 * the board's order within it: COMPETITION ties stay tied). A final board's players are in the
 * regions and groups they had at its close (`frozen`).
 */
function rankedFor(tx: Tx, board: Season, rule: RewardRule, source: Fragment, frozen: boolean) {
  if (!rule.per)
    return tx`select f.player_id, f.points, f.rank, ''::text as scope, count(*) over () as n from (${source}) f`;
  const rank =
    board.rankStyle === 'COMPETITION'
      ? tx`rank() over (partition by sc.scope order by f.rank)`
      : tx`row_number() over (partition by sc.scope order by f.position)`;
  const scopes =
    rule.per === 'COHORT'
      ? tx`join league_members m on m.season_id = ${seasonIdOf(board)} and m.player_id = f.player_id
           cross join lateral (select ${cohortScopeOfRow(tx)}) as sc(scope)`
      : tx`join ${scopeRows(tx, board, frozen)} p using (player_id)
           cross join lateral unnest(${scopesOfRow(tx, rule.per)}) as sc(scope)`;
  return tx`select f.player_id, f.points, ${rank} as rank, sc.scope, count(*) over (partition by sc.scope) as n
            from (${source}) f ${scopes}`;
}

/** The places a rule rewards, as a condition on `ranked`. */
function placesOf(tx: Tx, rule: RewardRule) {
  if ('ranks' in rule) return tx`rank between ${rule.ranks.from} and ${rule.ranks.to}`;
  // The top p%: every rank within the first ceil(n * p / 100) places (ties at the edge included).
  if ('topPercent' in rule) return tx`rank <= ceil(n * ${rule.topPercent}::float8 / 100)`;
  return tx`true`;
}

/** Rewards in PostgreSQL: the outbox to Kafka, a player's list, claims. */
export function createRewardsStore(sql: Sql) {
  return {
    /** Up to `limit` rewards of the season not yet acknowledged by Kafka, in key order. */
    async unpublished(seasonId: number, limit: number): Promise<Reward[]> {
      const rows = await sql<RewardRow[]>`
        select ${sql.unsafe(COLUMNS)} from rewards
        where season_id = ${seasonId} and published_at is null order by key limit ${limit}`;
      return rows.map(toReward);
    },

    async markPublished(keys: readonly string[]): Promise<void> {
      if (keys.length > 0)
        await sql`update rewards set published_at = now() where key = any(${sql.array([...keys])}::text[])`;
    },

    /** Seasons with rewards Kafka has not acknowledged (a close cut short after its grant). */
    async seasonsUnpublished(): Promise<number[]> {
      const rows = await sql<Array<{ season_id: number }>>`
        select distinct season_id from rewards where published_at is null`;
      return rows.map((r) => r.season_id);
    },

    /** A player's rewards, newest first; of one season when given. */
    async forPlayer(playerId: string, seasonId: number | null, limit: number): Promise<Reward[]> {
      const rows = await sql<RewardRow[]>`
        select ${sql.unsafe(COLUMNS)} from rewards
        where player_id = ${playerId}::int8 and (${seasonId}::int4 is null or season_id = ${seasonId}::int4)
        order by granted_at desc, key limit ${limit}`;
      return rows.map(toReward);
    },

    /** Marks a reward claimed, once: a second claim returns it as it is. Undefined: no such reward. */
    async claim(key: string): Promise<Reward | undefined> {
      const [row] = await sql<RewardRow[]>`
        with claimed as (
          update rewards set claimed_at = now() where key = ${key} and claimed_at is null
          returning ${sql.unsafe(COLUMNS)})
        select * from claimed
        union all
        select ${sql.unsafe(COLUMNS)} from rewards where key = ${key} and not exists (select 1 from claimed)`;
      return row && toReward(row);
    },
  };
}
