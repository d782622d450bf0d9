import { asc, eq, sql } from 'drizzle-orm';
import type { ShardLayout } from '../domain/shards.js';
import {
  ALL_WINDOWS,
  type ScoreSplit,
  type Season,
  type SeasonDefinition,
  type SeasonStatus,
} from '../domain/season.js';
import type { Db } from './client.js';
import { seasons } from './schema.js';

type SeasonRow = typeof seasons.$inferSelect;
/** A transaction of the database, as db.transaction gives it. */
type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/** A seasons row as the domain type. */
export function toSeason(row: SeasonRow): Season {
  return {
    id: row.id,
    name: row.name,
    startsAt: row.startsAt,
    endsAt: row.endsAt,
    status: row.status,
    scoring: row.scoring,
    order: row.sortOrder,
    rankStyle: row.rankStyle,
    maxPointsPerMatch: row.maxPointsPerMatch,
    split: { pointsBits: row.pointsBits, timeBits: row.timeBits, timeUnitSeconds: row.timeUnitSeconds },
    finalizedAt: row.finalizedAt,
    shards: row.shardLayout,
    windows: ALL_WINDOWS.filter((w) => row.windows.includes(w)),
    resetOffsetMinutes: row.resetOffsetMinutes,
    ...(row.periodHours == null ? {} : { periodHours: row.periodHours }),
    board: row.board,
    stat: row.stat,
    keys: row.boardKeys,
    parentId: row.parentId,
    ...(row.rewardRules ? { rewards: row.rewardRules } : {}),
    ...(row.groupBestOf ? { groupBestOf: row.groupBestOf } : {}),
    ...(row.league ? { league: row.league } : {}),
    ...(row.repeats ? { repeats: true } : {}),
    ...(row.follows != null ? { follows: row.follows } : {}),
  };
}

/**
 * Seasons in PostgreSQL. `placeShards` gives the hash tags of a sharded season's shards
 * (redis/shard-placement.ts); without it, a season with shard bounds cannot be created.
 */
export function createSeasonsRepo(db: Db, placeShards?: (seasonId: number, count: number) => Promise<string[]>) {
  /**
   * Stores one row. With `def.shardBounds`, `placeShards` gives each shard's hash tag; tags carry
   * the season's id, so the id is taken from the sequence first.
   */
  async function insertRow(
    conn: Db | Tx,
    def: SeasonDefinition,
    split: ScoreSplit,
    status: SeasonStatus,
  ): Promise<Season> {
    let id: number | undefined;
    let shardLayout: ShardLayout | null = null;
    if (def.shardBounds) {
      if (!placeShards) throw new Error('a sharded season needs placeShards');
      const [next] = await conn.execute<{ id: number }>(
        sql`select nextval(pg_get_serial_sequence('seasons', 'id'))::int as id`,
      );
      id = next!.id;
      shardLayout = { bounds: [...def.shardBounds], tags: await placeShards(id, def.shardBounds.length + 1) };
    }
    const [row] = await conn
      .insert(seasons)
      .values({
        ...(id === undefined ? {} : { id }),
        shardLayout,
        name: def.name,
        startsAt: def.startsAt,
        endsAt: def.endsAt,
        status,
        scoring: def.scoring,
        sortOrder: def.order,
        rankStyle: def.rankStyle,
        maxPointsPerMatch: def.maxPointsPerMatch,
        pointsBits: split.pointsBits,
        timeBits: split.timeBits,
        timeUnitSeconds: split.timeUnitSeconds,
        ...(def.windows ? { windows: ALL_WINDOWS.filter((w) => def.windows!.includes(w)) } : {}),
        ...(def.resetOffsetMinutes !== undefined ? { resetOffsetMinutes: def.resetOffsetMinutes } : {}),
        ...(def.periodHours !== undefined ? { periodHours: def.periodHours } : {}),
        ...(def.board === undefined ? {} : { board: def.board }),
        ...(def.stat === undefined ? {} : { stat: def.stat }),
        ...(def.keys === undefined ? {} : { boardKeys: [...def.keys] }),
        ...(def.parentId === undefined ? {} : { parentId: def.parentId }),
        ...(def.rewards && def.rewards.length > 0 ? { rewardRules: [...def.rewards] } : {}),
        ...(def.groupBestOf ? { groupBestOf: def.groupBestOf } : {}),
        ...(def.league ? { league: def.league } : {}),
        ...(def.repeats ? { repeats: true } : {}),
        ...(def.follows !== undefined ? { follows: def.follows } : {}),
      })
      .returning();
    return toSeason(row!);
  }

  return {
    /** A season with its further boards, or one further board alone. */
    async get(id: number): Promise<Season | undefined> {
      const [row] = await db.select().from(seasons).where(eq(seasons.id, id));
      if (!row || row.parentId !== null) return row && toSeason(row);
      const boards = await db.select().from(seasons).where(eq(seasons.parentId, id)).orderBy(asc(seasons.id));
      return { ...toSeason(row), ...(boards.length > 0 ? { boards: boards.map(toSeason) } : {}) };
    },

    /** Every row: seasons and their further boards alike (the jobs that keep boards run on each). */
    async list(status?: SeasonStatus): Promise<Season[]> {
      const rows = await db
        .select()
        .from(seasons)
        .where(status ? eq(seasons.status, status) : undefined)
        .orderBy(asc(seasons.id));
      return rows.map(toSeason);
    },

    /**
     * Stores an already validated definition, and the further boards of the season with it, all or
     * nothing (one transaction).
     */
    async insert(
      def: SeasonDefinition,
      split: ScoreSplit,
      status: SeasonStatus,
      boards: ReadonlyArray<{ def: SeasonDefinition; split: ScoreSplit }> = [],
    ): Promise<Season> {
      if (boards.length === 0) return insertRow(db, def, split, status);
      return db.transaction(async (tx) => {
        const season = await insertRow(tx, def, split, status);
        const further: Season[] = [];
        for (const b of boards) further.push(await insertRow(tx, { ...b.def, parentId: season.id }, b.split, status));
        return { ...season, boards: further };
      });
    },

    /** The id of the season created to follow this one, if any. */
    async successorOf(id: number): Promise<number | undefined> {
      const [row] = await db.select({ id: seasons.id }).from(seasons).where(eq(seasons.follows, id));
      return row?.id;
    },

    /** How many players of a season's SEASON board hold each points value (to size a later season's shards). */
    async pointsHistogram(seasonId: number): Promise<Array<{ points: number; players: number }>> {
      const rows = await db.execute<{ points: string; players: number }>(sql`
        select points, count(*)::int as players from standings
        where season_id = ${seasonId} and "window" = 'SEASON' group by points`);
      return rows.map((r) => ({ points: Number(r.points), players: r.players }));
    },

    async setStatus(id: number, status: SeasonStatus): Promise<Season | undefined> {
      const [row] = await db.update(seasons).set({ status }).where(eq(seasons.id, id)).returning();
      return row && toSeason(row);
    },
  };
}

export type SeasonsRepo = ReturnType<typeof createSeasonsRepo>;
