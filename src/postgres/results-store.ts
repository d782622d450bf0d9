import type { AcceptedResult, BoardRef, BoardStanding } from '../domain/board-deltas.js';
import { compareIds, distinctBoardRefs, foldIntoBoards } from '../domain/board-deltas.js';
import type { ScoringMode, Season, SortOrder } from '../domain/season.js';
import { epochMs, type Sql, type Tx } from './client.js';

/** How a stored standing and a batch's delta combine (the rule of domain/ranking.ts applyResult). */
export type CombineRule = 'BEST_DESC' | 'BEST_ASC' | 'SUM';

/** The combine rule of a season. */
export function combineRule(scoring: ScoringMode, order: SortOrder): CombineRule {
  return scoring === 'SUM' ? 'SUM' : order === 'ASC' ? 'BEST_ASC' : 'BEST_DESC';
}

// The SET clauses of the standings upsert: `st` is the stored row, `excluded` the batch delta.
// Each is applyResult(stored, delta) of domain/ranking.ts, written in SQL. They never lower the
// encoded score, so Redis can mirror the result with ZADD GT.
const combineSql: Record<CombineRule, string> = {
  BEST_DESC: `
    points = greatest(st.points, excluded.points),
    achieved_at = case when excluded.points > st.points then excluded.achieved_at
                       when excluded.points = st.points then least(st.achieved_at, excluded.achieved_at)
                       else st.achieved_at end`,
  BEST_ASC: `
    points = least(st.points, excluded.points),
    achieved_at = case when excluded.points < st.points then excluded.achieved_at
                       when excluded.points = st.points then least(st.achieved_at, excluded.achieved_at)
                       else st.achieved_at end`,
  // A SUM total was reached when its latest positive result ended; a zero total, at its first.
  SUM: `
    points = st.points + excluded.points,
    achieved_at = case when excluded.points = 0 then
                         case when st.points = 0 then least(st.achieved_at, excluded.achieved_at)
                              else st.achieved_at end
                       when st.points = 0 then excluded.achieved_at
                       else greatest(st.achieved_at, excluded.achieved_at) end`,
};

/** The batch write path of ingest: match_results and standings in one transaction. */
export function createResultsStore(sql: Sql) {
  return {
    /**
     * Inserts the results (duplicates skipped by the primary key), folds the newly inserted ones
     * into per-board deltas, upserts those, and returns the CURRENT standing on every board the
     * batch touches, duplicates included: a replayed batch must still reach Redis.
     */
    async applyBatch(
      results: readonly AcceptedResult[],
      seasonOf: (id: number) => Season,
    ): Promise<{ inserted: number; standings: BoardStanding[] }> {
      const rows = dedupeAndSort(results);
      const refs = distinctBoardRefs(rows);
      return sql.begin(async (tx) => {
        const insertedKeys = await tx<{ k: string }[]>`
          insert into match_results (match_id, player_id, season_id, points, ended_at, kafka_partition, kafka_offset)
          select * from unnest(
            ${tx.array(rows.map((r) => r.matchId))}::uuid[],
            ${tx.array(rows.map((r) => r.playerId))}::int8[],
            ${tx.array(rows.map((r) => r.seasonId))}::int4[],
            ${tx.array(rows.map((r) => r.points))}::int4[],
            ${tx.array(rows.map((r) => r.endedAt.toISOString()))}::timestamptz[],
            ${tx.array(rows.map((r) => r.partition))}::int4[],
            ${tx.array(rows.map((r) => r.offset))}::int8[])
          on conflict do nothing
          returning match_id || '|' || player_id as k`;
        const inserted = new Set(insertedKeys.map((r) => r.k));
        const deltas = foldIntoBoards(rows.filter((r) => inserted.has(`${r.matchId}|${r.playerId}`)), seasonOf);
        const ruleOf = (d: BoardStanding) => {
          const season = seasonOf(d.seasonId);
          return combineRule(season.scoring, season.order);
        };
        for (const rule of Object.keys(combineSql) as CombineRule[]) {
          const part = deltas.filter((d) => ruleOf(d) === rule);
          if (part.length > 0) await upsertStandings(tx, rule, part);
        }
        return { inserted: inserted.size, standings: await currentStandings(tx, refs) };
      }) as Promise<{ inserted: number; standings: BoardStanding[] }>;
    },
  };
}

export type ResultsStore = ReturnType<typeof createResultsStore>;

/** One row per (match, player), in primary-key order so concurrent batches cannot deadlock. */
function dedupeAndSort(results: readonly AcceptedResult[]): AcceptedResult[] {
  const byKey = new Map<string, AcceptedResult>();
  for (const r of results) {
    const k = `${r.matchId}|${r.playerId}`;
    if (!byKey.has(k)) byKey.set(k, r);
  }
  return [...byKey.values()].sort((a, b) =>
    (a.matchId < b.matchId ? -1 : a.matchId > b.matchId ? 1 : 0) || compareIds(a.playerId, b.playerId));
}

async function upsertStandings(tx: Tx, rule: CombineRule, deltas: BoardStanding[]): Promise<void> {
  // Deltas arrive sorted by the standings primary key (foldIntoBoards), for the same reason.
  await tx`
    insert into standings as st (season_id, "window", period, player_id, points, achieved_at)
    select * from unnest(
      ${tx.array(deltas.map((d) => d.seasonId))}::int4[],
      ${tx.array(deltas.map((d) => d.window))}::board_window[],
      ${tx.array(deltas.map((d) => d.period))}::text[],
      ${tx.array(deltas.map((d) => d.playerId))}::int8[],
      ${tx.array(deltas.map((d) => d.points))}::int8[],
      ${tx.array(deltas.map((d) => d.achievedAt.toISOString()))}::timestamptz[])
    on conflict (season_id, "window", period, player_id) do update set
      ${tx.unsafe(combineSql[rule])},
      updated_at = now()`;
}

async function currentStandings(tx: Tx, refs: readonly BoardRef[]): Promise<BoardStanding[]> {
  const rows = await tx<{ season_id: number; window: BoardStanding['window']; period: string; player_id: string; points: string; achieved_ms: string }[]>`
    select s.season_id, s."window", s.period, s.player_id, s.points, ${epochMs(tx, 's.achieved_at')} as achieved_ms
    from unnest(
      ${tx.array(refs.map((r) => r.seasonId))}::int4[],
      ${tx.array(refs.map((r) => r.window))}::board_window[],
      ${tx.array(refs.map((r) => r.period))}::text[],
      ${tx.array(refs.map((r) => r.playerId))}::int8[]) as k(season_id, w, period, player_id)
    join standings s on s.season_id = k.season_id and s."window" = k.w
                    and s.period = k.period and s.player_id = k.player_id`;
  return rows.map((r) => ({
    seasonId: r.season_id,
    window: r.window,
    period: r.period,
    playerId: r.player_id,
    points: Number(r.points),
    achievedAt: new Date(Number(r.achieved_ms)),
  }));
}
