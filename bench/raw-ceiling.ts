// Scenario a, the "raw ceiling" of docs/design.md#measured-facts: the same logical work as
// ladder's ingest (store every result once, keep each player's best standing on the SEASON, DAY
// and WEEK boards, mirror it to Redis), written the plainest fast way: one SQL statement per
// 1000-row batch, then one pipelined ZADD GT per board. It is what BEST seasons could cost if
// ladder's layers were free.
import type { Redis } from 'ioredis';
import type { Sql } from '../src/postgres/client.js';
import type { Season } from '../src/domain/season.js';
import { createCodec } from '../src/domain/score-codec.js';
import { dayPeriod, weekPeriod } from '../src/domain/windows.js';
import { boardKey } from '../src/redis/keys.js';
import { seasonBoard } from '../src/domain/board.js';
import type { BenchResult } from './generate.js';

const BATCH = 1000;

/** Wall seconds spent in each store during the run, so a slow ceiling says which side is slow. */
export interface PhaseTimes {
  pgSeconds: number;
  redisSeconds: number;
}

/**
 * Inserts the results (duplicates skipped by the primary key) and upserts the best standing of
 * the newly inserted ones, in one statement: the data-modifying CTE makes it atomic without an
 * explicit transaction. DISTINCT ON folds a player's several results on one board within the
 * batch, since ON CONFLICT DO UPDATE may not touch a row twice in one statement. The combine rule
 * is ladder's BEST_DESC (results-store.ts), so both end with identical standings.
 */
async function storeBatch(
  sql: Sql,
  seasonId: number,
  batch: readonly BenchResult[],
  firstOffset: number,
): Promise<void> {
  await sql`
    with ins as (
      insert into match_results (match_id, player_id, season_id, points, ended_at, kafka_partition, kafka_offset)
      select m, p, ${seasonId}::int4, pts, e, 0, ${firstOffset}::int8 + o - 1
      from unnest(
        ${sql.array(batch.map((r) => r.matchId))}::uuid[],
        ${sql.array(batch.map((r) => r.playerId))}::int8[],
        ${sql.array(batch.map((r) => r.points))}::int4[],
        ${sql.array(batch.map((r) => new Date(r.endedAtMs).toISOString()))}::timestamptz[])
        with ordinality as u(m, p, pts, e, o)
      on conflict do nothing
      returning player_id, points, ended_at
    ), boards as (
      select w.win, w.period, ins.player_id, ins.points, ins.ended_at
      from ins cross join lateral (values
        ('SEASON'::board_window, ''),
        ('DAY'::board_window, to_char(ins.ended_at at time zone 'UTC', 'YYYY-MM-DD')),
        ('WEEK'::board_window, to_char(ins.ended_at at time zone 'UTC', 'IYYY-"W"IW'))) as w(win, period)
    )
    insert into standings as st (season_id, "window", period, player_id, points, achieved_at)
    select distinct on (win, period, player_id) ${seasonId}::int4, win, period, player_id, points, ended_at
    from boards
    order by win, period, player_id, points desc, ended_at
    on conflict (season_id, "window", period, player_id) do update set
      points = greatest(st.points, excluded.points),
      achieved_at = case when excluded.points > st.points then excluded.achieved_at
                         when excluded.points = st.points then least(st.achieved_at, excluded.achieved_at)
                         else st.achieved_at end,
      updated_at = now()`;
}

/**
 * For BEST a result's own composite score is already absolute (docs/design.md#data-flow), so Redis
 * needs nothing back from PostgreSQL: ZADD GT of every result, one command per board and batch
 * (the same shape as ladder's one Lua call per board), no Lua, no PUBLISH, no rank lookups.
 */
async function boardBatch(
  redis: Redis,
  season: Season,
  batch: readonly BenchResult[],
  encode: (r: BenchResult) => string,
): Promise<void> {
  const byBoard = new Map<string, string[]>();
  for (const r of batch) {
    const at = new Date(r.endedAtMs);
    const score = encode(r);
    for (const key of [
      boardKey(seasonBoard(season)),
      boardKey({ season, window: 'DAY', period: dayPeriod(at) }),
      boardKey({ season, window: 'WEEK', period: weekPeriod(at) }),
    ]) {
      const args = byBoard.get(key);
      if (args) args.push(score, r.playerId);
      else byBoard.set(key, [score, r.playerId]);
    }
  }
  const pipeline = redis.pipeline();
  for (const [key, args] of byBoard) pipeline.zadd(key, 'GT', ...args);
  for (const [err] of (await pipeline.exec()) ?? []) if (err) throw err;
}

/** Runs scenario a: PostgreSQL then Redis per batch, sequentially, as one ingest worker would. */
export async function runRawCeiling(
  sql: Sql,
  redis: Redis,
  season: Season,
  results: readonly BenchResult[],
): Promise<PhaseTimes> {
  const codec = createCodec(season);
  const encode = (r: BenchResult) => codec.toRedis(codec.encode(r.points, new Date(r.endedAtMs)));
  const times: PhaseTimes = { pgSeconds: 0, redisSeconds: 0 };
  // The season's day partitions, made before the clock starts (ladder's ingest makes each once).
  for (const day of new Set(results.map((r) => dayPeriod(new Date(r.endedAtMs)))))
    await sql`select ladder_results_partition(${season.id}, ${day}::date)`;
  for (let i = 0; i < results.length; i += BATCH) {
    const batch = results.slice(i, i + BATCH);
    const t0 = performance.now();
    await storeBatch(sql, season.id, batch, i);
    const t1 = performance.now();
    await boardBatch(redis, season, batch, encode);
    times.pgSeconds += (t1 - t0) / 1000;
    times.redisSeconds += (performance.now() - t1) / 1000;
  }
  return times;
}
