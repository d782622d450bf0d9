// Rank history in PostgreSQL (docs/design.md#rank-history): a snapshot ranks the SEASON board
// from standings (ranked-standings.ts: exactly Redis's order) inside one REPEATABLE READ
// transaction, so every rank is of the same instant, and stores them by slot, 4 bytes a player.
import { RANK_CHUNK_SLOTS, unpackRank, type RankPoint } from '../domain/rank-history.js';
import { seasonBoard } from '../domain/board.js';
import type { Season } from '../domain/season.js';
import type { SnapshotReport } from '../service/rank-history.js';
import { ADVISORY_LOCKS } from './advisory-lock.js';
import { epochMs, type Sql, type Tx } from './client.js';
import { rankedStandings } from './ranked-standings.js';

export function createRankSnapshots(sql: Sql) {
  return {
    /** The newest boundary snapshotted for each of `seasonIds` (absent: none yet). */
    async latest(seasonIds: readonly number[]): Promise<Map<number, Date>> {
      if (seasonIds.length === 0) return new Map();
      const rows = await sql<{ season_id: number; ms: string }[]>`
        select season_id, ${epochMs(sql, 'max(boundary)')}::text as ms from rank_snapshots
        where season_id = any(${sql.array([...seasonIds])}::int4[]) and chunk = 0 group by season_id`;
      return new Map(rows.map((r) => [r.season_id, new Date(Number(r.ms))]));
    },

    /**
     * Snapshots the season's SEASON board as `boundary`; a no-op if that boundary has one. Players
     * first ranked now get the next slots. Ingest goes on meanwhile: the transaction only reads
     * standings (MVCC: it blocks no writer) and writes rank_slots and rank_snapshots.
     */
    async take(season: Season, boundary: Date): Promise<SnapshotReport> {
      return sql.begin('isolation level repeatable read', async (tx) => {
        const report = { seasonId: season.id, boundary, taken: false, players: 0, newSlots: 0, chunks: 0 };
        await asBackgroundJob(tx, season.id);
        const [done] = await tx`select 1 from rank_snapshots
          where season_id = ${season.id} and boundary = ${boundary.toISOString()}::timestamptz and chunk = 0`;
        if (done) return report;
        // Slots first: every player on the board gets one, in this transaction's snapshot (most
        // have one already, from the hourly slot pass).
        report.newSlots = await insertSlots(tx, season.id);
        // Then the chunks, built where the ranks are: each slot's rank as 4 big-endian bytes
        // (int4send), 0 where the player is not ranked, concatenated in slot order. Nothing
        // crosses the wire but the 64 KiB chunks' row count.
        const [made] = await tx<[{ chunks: number; players: number }]>`
          with ranked as (${rankedStandings(tx, seasonBoard(season))}),
          chunks as (
            select s.slot / ${RANK_CHUNK_SLOTS} as chunk, count(r.rank)::int4 as players,
                   string_agg(int4send(coalesce(r.rank, 0)), ''::bytea order by s.slot) as ranks
            from rank_slots s left join ranked r on r.player_id = s.player_id
            where s.season_id = ${season.id}
            group by 1),
          stored as (
            insert into rank_snapshots (season_id, boundary, chunk, taken_at, players, ranks)
            select ${season.id}, ${boundary.toISOString()}::timestamptz, chunk, now(), players, ranks from chunks
            returning players)
          select count(*)::int4 as chunks, coalesce(sum(players), 0)::int4 as players from stored`;
        // Chunk 0 always, even of an empty board: it marks the boundary as taken.
        if (made.chunks === 0)
          await tx`insert into rank_snapshots (season_id, boundary, chunk, taken_at, players, ranks)
            values (${season.id}, ${boundary.toISOString()}::timestamptz, 0, now(), 0, ''::bytea)`;
        report.chunks = Math.max(1, made.chunks);
        report.players = made.players;
        report.taken = true;
        return report;
      });
    },

    /**
     * Gives a slot to every player on the season's board who has none yet, ahead of the next
     * snapshot (the scheduler's hourly slot pass): that snapshot then only slots the players of
     * the last hour, not a whole new board's (about 20 s at 10M). Returns how many were given.
     */
    async assignSlots(season: Season): Promise<number> {
      return sql.begin(async (tx) => {
        await asBackgroundJob(tx, season.id);
        return insertSlots(tx, season.id);
      });
    },

    /**
     * Each player's rank at the season's last `last` snapshots, oldest first: one point per
     * snapshot, rank null where the player was not on the board (or had no slot yet).
     */
    async history(seasonId: number, playerIds: readonly string[], last: number): Promise<Map<string, RankPoint[]>> {
      const snaps = await sql<{ boundary_ms: string; taken_ms: string }[]>`
        select ${epochMs(sql, 'boundary')}::text as boundary_ms, ${epochMs(sql, 'taken_at')}::text as taken_ms
        from rank_snapshots where season_id = ${seasonId} and chunk = 0 order by boundary desc limit ${last}`;
      const out = new Map<string, RankPoint[]>();
      if (snaps.length === 0 || playerIds.length === 0) {
        for (const id of playerIds) out.set(id, []);
        return out;
      }
      snaps.reverse();
      const bounds = snaps.map((s) => new Date(Number(s.boundary_ms)));
      // substring() of an EXTERNAL bytea fetches only the TOAST pages it covers: 4 bytes, one page.
      const rows = await sql<{ player_id: string; boundary_ms: string; bytes: Buffer | null }[]>`
        select s.player_id::text as player_id, ${epochMs(sql, 'c.boundary')}::text as boundary_ms,
               substring(c.ranks from (s.slot % ${RANK_CHUNK_SLOTS}) * 4 + 1 for 4) as bytes
        from rank_slots s
        join rank_snapshots c on c.season_id = s.season_id and c.chunk = s.slot / ${RANK_CHUNK_SLOTS}
          and c.boundary >= ${bounds[0]!.toISOString()}::timestamptz
        where s.season_id = ${seasonId} and s.player_id = any(${sql.array([...playerIds])}::int8[])`;
      const found = new Map(rows.map((r) => [`${r.player_id}/${r.boundary_ms}`, unpackRank(r.bytes)]));
      for (const id of playerIds)
        out.set(
          id,
          snaps.map((s, i) => ({
            at: bounds[i]!,
            takenAt: new Date(Number(s.taken_ms)),
            rank: found.get(`${id}/${s.boundary_ms}`) ?? null,
          })),
        );
      return out;
    },
  };
}

/**
 * A snapshot's or slot pass's transaction: one at a time per season (the two number slots from the
 * same max), and on one core: parallel sort workers would finish sooner and starve ingest.
 */
async function asBackgroundJob(tx: Tx, seasonId: number): Promise<void> {
  await tx`select pg_advisory_xact_lock(${ADVISORY_LOCKS.rankSnapshot}, ${seasonId})`;
  await tx`set local max_parallel_workers_per_gather = 0`;
}

/**
 * Slots for the players on the season's board who have none, numbered on from the season's last
 * in player order (so the key's inserts append rather than land at random), under the season's
 * snapshot lock (the caller's). Many at once: ANALYZE too, in this transaction, or the planner
 * would go on joining a 10M-row slot map as if it were empty (a third slower).
 */
async function insertSlots(tx: Tx, seasonId: number): Promise<number> {
  const fresh = await tx`
    insert into rank_slots (season_id, player_id, slot)
    select ${seasonId}, s.player_id,
           (select coalesce(max(slot) + 1, 0) from rank_slots where season_id = ${seasonId})
             + row_number() over (order by s.player_id) - 1
    from standings s
    where s.season_id = ${seasonId} and s."window" = 'SEASON' and s.period = ''
      and not exists (select 1 from rank_slots r where r.season_id = ${seasonId} and r.player_id = s.player_id)
    order by s.player_id`;
  if (fresh.count > 100_000) await tx`analyze rank_slots`;
  return fresh.count;
}
