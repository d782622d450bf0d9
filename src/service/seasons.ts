import { badInput, seasonNotFound } from '../domain/errors.js';
import { boundsFromHistogram } from '../domain/shards.js';
import {
  seasonStatusAt,
  splitWithDefaults,
  validateSeasonDefinition,
  type RankStyle,
  type ScoreSplit,
  type ScoringMode,
  type Season,
  type SeasonDefinition,
  type SeasonStatus,
  type Window,
  type SortOrder,
} from '../domain/season.js';

/** Where seasons are stored (PostgreSQL). */
export interface SeasonStore {
  get(id: number): Promise<Season | undefined>;
  list(status?: SeasonStatus): Promise<Season[]>;
  insert(def: SeasonDefinition, split: ScoreSplit, status: SeasonStatus): Promise<Season>;
  pointsHistogram(seasonId: number): Promise<Array<{ points: number; players: number }>>;
  setStatus(id: number, status: SeasonStatus): Promise<Season | undefined>;
}

/** A season with the status it has at `now` (the stored one lags until the scheduler runs). */
export function withCurrentStatus(season: Season, now: Date): Season {
  const status = seasonStatusAt(season, now);
  return status === season.status ? season : { ...season, status };
}

/** How a new season's shards are chosen: bounds given, or `count` shards from a previous season's scores. */
export interface ShardChoice {
  bounds?: number[] | undefined;
  count?: number | undefined;
  fromSeasonId?: number | undefined;
}

/** The shard bounds of a new season (docs/scale-out.md); undefined: one key per board. */
async function chooseShardBounds(
  store: SeasonStore,
  def: SeasonDefinition,
  choice: ShardChoice,
): Promise<number[] | undefined> {
  if (choice.bounds) {
    if (choice.count !== undefined && choice.count !== choice.bounds.length + 1) {
      throw badInput('shards', 'shards must be shardBounds + 1 when both are given');
    }
    return choice.bounds;
  }
  if (choice.count === undefined) {
    if (choice.fromSeasonId !== undefined) throw badInput('shards', 'shardsFromSeasonId needs shards (how many)');
    return undefined;
  }
  if (choice.fromSeasonId === undefined) {
    throw badInput('shards', 'give shardBounds, or shards with shardsFromSeasonId to split a previous season evenly');
  }
  const previous = await requireSeason(store, choice.fromSeasonId);
  if (previous.order !== def.order)
    throw badInput('shardsFromSeasonId', 'the previous season must have the same order');
  return boundsFromHistogram(await store.pointsHistogram(previous.id), choice.count, def.order);
}

/**
 * A new season as its callers state it (GraphQL's CreateSeasonInput, the CLI's options): flat,
 * each optional field absent or null.
 */
export interface NewSeasonInput {
  name: string;
  startsAt: Date;
  endsAt: Date;
  scoring: ScoringMode;
  maxPointsPerMatch: number;
  order?: SortOrder | null;
  rankStyle?: RankStyle | null;
  pointsBits?: number | null;
  timeBits?: number | null;
  timeUnitSeconds?: number | null;
  shardBounds?: readonly number[] | null;
  shards?: number | null;
  shardsFromSeasonId?: number | null;
  windows?: readonly Window[] | null;
  resetOffsetMinutes?: number | null;
}

/** What createSeason takes: DESC, ORDINAL and the scoring's split by default, a shard choice when one is asked. */
export function newSeasonOf(input: NewSeasonInput): SeasonDefinition & { shards?: ShardChoice } {
  const {
    pointsBits,
    timeBits,
    timeUnitSeconds,
    shardBounds,
    shards,
    shardsFromSeasonId,
    windows,
    resetOffsetMinutes,
  } = input;
  const { name, startsAt, endsAt, scoring, maxPointsPerMatch } = input;
  const sharded = shardBounds ?? shards ?? shardsFromSeasonId;
  return {
    name,
    startsAt,
    endsAt,
    scoring,
    maxPointsPerMatch,
    ...(windows == null ? {} : { windows: [...windows] }),
    ...(resetOffsetMinutes == null ? {} : { resetOffsetMinutes }),
    order: input.order ?? 'DESC',
    rankStyle: input.rankStyle ?? 'ORDINAL',
    split: splitWithDefaults(input.scoring, { pointsBits, timeBits, timeUnitSeconds }),
    ...(sharded == null
      ? {}
      : {
          shards: {
            bounds: shardBounds ? [...shardBounds] : undefined,
            count: shards ?? undefined,
            fromSeasonId: shardsFromSeasonId ?? undefined,
          },
        }),
  };
}

/** Validates and stores a new season; its status follows from its times. */
export async function createSeason(
  store: SeasonStore,
  input: SeasonDefinition & { shards?: ShardChoice },
  now: Date,
): Promise<Season> {
  const { shards, ...rest } = input;
  const def: SeasonDefinition = shards ? { ...rest, shardBounds: await chooseShardBounds(store, rest, shards) } : rest;
  const split = validateSeasonDefinition(def);
  const status = seasonStatusAt({ status: 'SCHEDULED', startsAt: def.startsAt, endsAt: def.endsAt }, now);
  if (status === 'CLOSED') throw badInput('endsAt', 'endsAt is in the past');
  return store.insert(def, split, status);
}

/** Lists seasons; a status filter applies to the status at `now`. */
export async function listSeasons(store: SeasonStore, status: SeasonStatus | undefined, now: Date): Promise<Season[]> {
  const all = (await store.list()).map((s) => withCurrentStatus(s, now));
  return status ? all.filter((s) => s.status === status) : all;
}

/** The season, or SEASON_NOT_FOUND. */
export async function requireSeason(store: SeasonStore, id: number): Promise<Season> {
  const season = await store.get(id);
  if (!season) throw seasonNotFound(id);
  return season;
}
