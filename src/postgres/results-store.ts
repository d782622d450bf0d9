import type { AcceptedResult, BoardRef, BoardStanding } from '../domain/board-deltas.js';
import { compareIds } from '../domain/board-deltas.js';
import { resetOffsetMs, type Season } from '../domain/season.js';
import { dayPeriod, monthPeriod, weekPeriod } from '../domain/windows.js';
import { BOARDS_OF_ROW, windowMask } from './period-sql.js';
import { conflictUpdate, ruleOf, type RuleSql } from './combine-rules.js';
import type { Sql } from './client.js';

// kind 's': a standing the statement changed; 'd': a board a duplicate counts on; 'n': how many
// results were new (inserted).
type StandingRow = {
  kind: 's' | 'd' | 'n';
  season_id: number;
  window: BoardStanding['window'];
  period: string;
  player_id: string;
  points: string;
  achieved_ms: string;
  inserted: string | null;
};

const toStanding = (r: Omit<StandingRow, 'kind' | 'inserted'>): BoardStanding => ({
  seasonId: r.season_id,
  window: r.window,
  period: r.period,
  playerId: r.player_id,
  points: Number(r.points),
  achievedAt: new Date(Number(r.achieved_ms)),
});

/** The batch write path of ingest: match_results and standings in one statement per combine rule. */
export function createResultsStore(sql: Sql) {
  // A result's DAY, WEEK and MONTH periods depend only on its UTC day shifted back by its season's
  // reset offset: computed once per (day, offset) seen.
  const periods = new Map<string, [day: string, week: string, month: string]>();
  const periodsOf = (endedAt: Date, offsetMs = 0): [string, string, string] => {
    const shifted = endedAt.getTime() - offsetMs;
    const key = `${Math.floor(shifted / 86_400_000)}|${offsetMs}`;
    let p = periods.get(key);
    if (!p) {
      if (periods.size > 10_000) periods.clear();
      const at = new Date(shifted);
      periods.set(key, (p = [dayPeriod(at), weekPeriod(at), monthPeriod(at)]));
    }
    return p;
  };

  // Each (season, UTC day) partition's creation, once per process: a missing one is created
  // before the insert that needs it (the scheduler creates them ahead of time:
  // service/season-scheduler.ts), one statement each so two creators cannot deadlock.
  const partitions = new Map<string, Promise<unknown>>();
  async function ensurePartitions(rows: readonly AcceptedResult[]): Promise<void> {
    const needed = new Map<string, [seasonId: number, day: string]>();
    for (const r of rows) {
      const day = periodsOf(r.endedAt)[0]; // partitions are UTC days of ended_at, whatever the offset
      needed.set(`${r.seasonId}|${day}`, [r.seasonId, day]);
    }
    for (const [key, [seasonId, day]] of needed) {
      let created = partitions.get(key);
      if (!created) {
        if (partitions.size > 10_000) partitions.clear();
        created = sql`select ladder_results_partition(${seasonId}, ${day}::date)`.execute();
        partitions.set(key, created);
        created.catch(() => partitions.delete(key));
      }
      await created;
    }
  }

  /** The current standings of the given boards (a primary-key lookup each). */
  async function currentStandings(refs: readonly BoardRef[]): Promise<BoardStanding[]> {
    const rows = await sql<Array<Omit<StandingRow, 'kind' | 'inserted'>>>`
      select s.season_id, s."window", s.period, s.player_id, s.points, floor(extract(epoch from s.achieved_at) * 1000)::int8 as achieved_ms
      from unnest(
        ${sql.array(refs.map((r) => r.seasonId))}::int4[],
        ${sql.array(refs.map((r) => r.window))}::board_window[],
        ${sql.array(refs.map((r) => r.period))}::text[],
        ${sql.array(refs.map((r) => r.playerId))}::int8[]) as k(season_id, w, period, player_id)
      join standings s on s.season_id = k.season_id and s."window" = k.w and s.period = k.period and s.player_id = k.player_id`;
    return rows.map(toStanding);
  }

  /**
   * One statement, so atomic without a transaction: insert the results (duplicates skipped by the
   * primary key), fold the newly inserted ones per board, upsert the standings they change and
   * return those, and the boards every duplicate counts on, whose CURRENT standings are then read:
   * a replayed chunk must still reach Redis (a crash between this commit and the Redis write).
   * Where a duplicate and a new result share a board, Redis gets the value twice; ZADD GT keeps
   * the higher, which is the stored one.
   */
  async function applyRule(
    rule: RuleSql,
    rows: readonly AcceptedResult[],
    seasonOf: (id: number) => Season,
  ): Promise<{ inserted: number; standings: BoardStanding[] }> {
    // The statement's columns, built in one pass.
    const n = rows.length;
    const [matchId, playerId, seasonId, points, endedAt, partition, offset, day, week, month, windows, metadata] = [
      [],
      [],
      [],
      [],
      [],
      [],
      [],
      [],
      [],
      [],
      [],
      [],
    ] as [
      string[],
      string[],
      number[],
      number[],
      string[],
      number[],
      string[],
      string[],
      string[],
      string[],
      number[],
      (string | null)[],
    ];
    // CUSTOM periods are computed by the statement itself, from each board's anchor and span.
    const anchor: string[] = [];
    const periodHours: (number | null)[] = [];
    for (let i = 0; i < n; i++) {
      const r = rows[i]!;
      const season = seasonOf(r.seasonId);
      const [d, w, m] = periodsOf(r.endedAt, resetOffsetMs(season));
      matchId.push(r.matchId);
      playerId.push(r.playerId);
      seasonId.push(r.seasonId);
      points.push(r.points);
      endedAt.push(r.endedAt.toISOString());
      partition.push(r.partition);
      offset.push(r.offset);
      day.push(d);
      week.push(w);
      month.push(m);
      windows.push(windowMask(season));
      metadata.push(r.metadata ?? null);
      anchor.push(season.startsAt.toISOString());
      periodHours.push(season.periodHours ?? null);
    }
    const { fold, keyState } = rule;
    const combine = conflictUpdate(rule);
    const result = await sql<StandingRow[]>`
      with r as (
        select * from unnest(
          ${sql.array(matchId)}::uuid[],
          ${sql.array(playerId)}::int8[],
          ${sql.array(seasonId)}::int4[],
          ${sql.array(points)}::int4[],
          ${sql.array(endedAt)}::timestamptz[],
          ${sql.array(partition)}::int4[],
          ${sql.array(offset)}::int8[],
          ${sql.array(day)}::text[],
          ${sql.array(week)}::text[],
          ${sql.array(month)}::text[],
          ${sql.array(windows)}::int4[],
          ${sql.array(metadata)}::jsonb[],
          ${sql.array(anchor)}::timestamptz[],
          ${sql.array(periodHours)}::int4[])
          as r(match_id, player_id, season_id, points, ended_at, kafka_partition, kafka_offset, day, week, month, windows, metadata,
               anchor, period_hours)
      ), ins as (
        insert into match_results (season_id, ended_at, match_id, player_id, points, kafka_partition, kafka_offset, metadata)
        select season_id, ended_at, match_id, player_id, points, kafka_partition, kafka_offset, metadata from r
        on conflict do nothing
        returning season_id, match_id, player_id
      ), b as (
        select r.season_id, w.win, w.period, r.player_id, r.points, r.ended_at, r.metadata
        from r join ins using (season_id, match_id, player_id)
        cross join lateral (${sql.unsafe(BOARDS_OF_ROW)}) as w(win, period, bit)
        where r.windows & w.bit <> 0
      ), up as (
        insert into standings as st (season_id, "window", period, player_id, points, achieved_at, metadata${sql.unsafe(keyState ? ', key_state' : '')})
        ${sql.unsafe(fold)}
        on conflict (season_id, "window", period, player_id) do update set ${sql.unsafe(combine)}
        returning season_id, "window", period, player_id, points, achieved_at
      ), dup as (
        select distinct r.season_id, w.win, w.period, r.player_id
        from r left join ins using (season_id, match_id, player_id)
        cross join lateral (${sql.unsafe(BOARDS_OF_ROW)}) as w(win, period, bit)
        where ins.match_id is null and r.windows & w.bit <> 0
      )
      select 's' as kind, season_id, "window", period, player_id, points,
             floor(extract(epoch from achieved_at) * 1000)::int8 as achieved_ms, null::int8 as inserted
      from up
      union all
      select 'd', season_id, win, period, player_id, null, null, null from dup
      union all
      select 'n', null, null, null, null, null, null, count(*) from ins`;
    let inserted = 0;
    const standings: BoardStanding[] = [];
    const duplicates: BoardRef[] = [];
    for (const r of result) {
      if (r.kind === 'n') inserted = Number(r.inserted);
      else if (r.kind === 'd')
        duplicates.push({ seasonId: r.season_id, window: r.window, period: r.period, playerId: r.player_id });
      else standings.push(toStanding(r));
    }
    // Read in a statement of its own: its snapshot sees a concurrent writer of the same results
    // (a stale consumer during a rebalance) whose commit this statement's insert waited for; the
    // statement above, whose snapshot predates that commit, would read the standing without them.
    if (duplicates.length > 0) for (const st of await currentStandings(duplicates)) standings.push(st);
    return { inserted, standings };
  }

  return {
    currentStandings,
    /**
     * Stores the results once and returns the standings Redis must mirror: those the batch
     * changed, and the current ones of the boards its duplicates count on.
     */
    async applyBatch(
      results: readonly AcceptedResult[],
      seasonOf: (id: number) => Season,
    ): Promise<{ inserted: number; standings: BoardStanding[] }> {
      const byRule = new Map<string, { rule: RuleSql; rows: AcceptedResult[] }>();
      const rows = dedupeAndSort(results);
      await ensurePartitions(rows);
      for (const r of rows) {
        const [name, rule] = ruleOf(seasonOf(r.seasonId));
        const group = byRule.get(name);
        if (group) group.rows.push(r);
        else byRule.set(name, { rule, rows: [r] });
      }
      // Each rule's statement is atomic on its own rows; if a later one fails, the retried chunk
      // finds the earlier one's rows stored and reads their standings back like any replay.
      let inserted = 0;
      const standings: BoardStanding[] = [];
      for (const { rule, rows } of byRule.values()) {
        const part = await applyRule(rule, rows, seasonOf);
        inserted += part.inserted;
        for (const s of part.standings) standings.push(s);
      }
      return { inserted, standings };
    },
  };
}

/**
 * One row per (season, endedAt, match, player), in primary-key order so concurrent batches lock
 * rows in one global order and cannot deadlock.
 */
function dedupeAndSort(results: readonly AcceptedResult[]): AcceptedResult[] {
  const sorted = [...results].sort(compareKeys);
  // Sorted, so a redelivered copy sits right after the first: keep the first.
  return sorted.filter((r, i) => i === 0 || compareKeys(r, sorted[i - 1]!) !== 0);
}

function compareKeys(a: AcceptedResult, b: AcceptedResult): number {
  return (
    a.seasonId - b.seasonId ||
    a.endedAt.getTime() - b.endedAt.getTime() ||
    (a.matchId < b.matchId ? -1 : a.matchId > b.matchId ? 1 : 0) ||
    compareIds(a.playerId, b.playerId)
  );
}
