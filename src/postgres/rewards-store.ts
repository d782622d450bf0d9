import { boardName, seasonIdOf, type Season } from '../domain/season.js';
import type { Reward, RewardRule } from '../domain/rewards.js';
import type { Sql, Tx } from './client.js';
import { scopesOfRow } from './player-scopes-store.js';

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

/**
 * Grants the reward rules that rank by this board (a season's row or a further board's), from its
 * final standings, in the transaction that wrote them (season-lifecycle-store.ts finalize): so
 * every reward exists exactly when its board is final, once per key (`on conflict do nothing`
 * guards a key two rules could not share anyway). Players blocked in the season get nothing.
 * Returns how many were granted.
 */
export async function grantBoardRewards(tx: Tx, board: Season): Promise<number> {
  const seasonId = seasonIdOf(board);
  // The rules live on the season's row; a further board's close reads them from there.
  const [season] = await tx<Array<{ rules: RewardRule[] | null }>>`
    select reward_rules as rules from seasons where id = ${seasonId}`;
  let granted = 0;
  for (const rule of season?.rules ?? []) {
    if (rule.board !== boardName(board)) continue;
    const rows = await tx`
      with ranked as (${rankedFor(tx, board, rule)}),
      kept as (select * from ranked
               where player_id not in (select player_id from blocked_players where season_id = ${seasonId})
                 and ${placesOf(tx, rule)})
      insert into rewards (key, season_id, board, "window", period, scope, player_id, rule, rank, points, reward)
      select concat_ws('/', ${seasonId}::int4, ${rule.board}::text, 'SEASON', '', scope, player_id, ${rule.name}::text),
             ${seasonId}, ${rule.board}, 'SEASON', '', scope, player_id, ${rule.name}, rank, points,
             ${JSON.stringify(rule.reward)}::jsonb
      from kept
      on conflict (key) do nothing
      returning 1`;
    granted += rows.length;
  }
  return granted;
}

/**
 * The final SEASON standings of a board with each player's rank and the size of what they are
 * ranked in (`n`): the whole board, or each region or group for a rule `per` one (ranked again
 * in the board's order within it: COMPETITION ties stay tied).
 */
function rankedFor(tx: Tx, board: Season, rule: RewardRule) {
  const where = tx`f.season_id = ${board.id} and f."window" = 'SEASON' and f.period = ''`;
  if (!rule.per)
    return tx`select f.player_id, f.points, f.rank, ''::text as scope, count(*) over () as n
              from season_final_standings f where ${where}`;
  const rank =
    board.rankStyle === 'COMPETITION'
      ? tx`rank() over (partition by sc.scope order by f.rank)`
      : tx`row_number() over (partition by sc.scope order by f.position)`;
  return tx`select f.player_id, f.points, ${rank} as rank, sc.scope, count(*) over (partition by sc.scope) as n
            from season_final_standings f join player_scopes p using (player_id)
            cross join lateral unnest(${scopesOfRow(tx, rule.per)}) as sc(scope)
            where ${where}`;
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
