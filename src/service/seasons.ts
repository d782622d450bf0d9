import { badInput, seasonNotFound } from '../domain/errors.js';
import { checkName, packedMax, validateKeys } from '../domain/board-keys.js';
import { aggregatesPerKey } from '../domain/key-aggregates.js';
import { boundsFromHistogram } from '../domain/shards.js';
import { rewardRulesOf, type RewardRuleInput } from '../domain/rewards.js';
import { leagueOf, type LeagueInput } from '../domain/leagues.js';
import {
  boardName,
  defaultSplit,
  seasonStatusAt,
  type BoardKey,
  type KeyAggregate,
  splitWithDefaults,
  validateSeasonDefinition,
  windowsOf,
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
  /** One season, with its further boards in the same transaction. */
  insert(
    def: SeasonDefinition,
    split: ScoreSplit,
    status: SeasonStatus,
    boards?: ReadonlyArray<{ def: SeasonDefinition; split: ScoreSplit }>,
  ): Promise<Season>;
  pointsHistogram(seasonId: number): Promise<Array<{ points: number; players: number }>>;
  /** The id of the season created to follow this one (service/season-rollover.ts), if any. */
  successorOf(id: number): Promise<number | undefined>;
  setStatus(id: number, status: SeasonStatus): Promise<Season | undefined>;
}

/** A season with the status it has at `now` (the stored one lags until the scheduler runs). */
export function withCurrentStatus(season: Season, now: Date): Season {
  const status = seasonStatusAt(season, now);
  if (status === season.status) return season;
  const boards = season.boards?.map((b) => withCurrentStatus(b, now));
  return { ...season, status, ...(boards ? { boards } : {}) };
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
  scoring?: ScoringMode | null;
  /** Without boards: the range of `points`. With boards: each board has its own. */
  maxPointsPerMatch?: number | null;
  /** The season's boards, its first one the season's own; absent: one board, 'points'. */
  boards?: readonly NewBoardInput[] | null;
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
  /** Hours of each CUSTOM period (with the CUSTOM window). */
  periodHours?: number | null;
  /** Rewards granted at the close by final rank (docs/design.md#rewards). */
  rewards?: readonly RewardRuleInput[] | null;
  /** Group boards total each group's best N members (docs/design.md#group-boards); absent: all. */
  groupBestOf?: number | null;
  /** League mode (docs/design.md#leagues). */
  league?: LeagueInput | null;
  /** Once final, the next season of the same definition is created (service/season-rollover.ts). */
  repeats?: boolean | null;
}

/** One key of a new multi-key board: MIN and MAX are BEST on an ASC and a DESC key. */
interface NewKeyInput {
  stat: string;
  order?: SortOrder | null;
  max: number;
  aggregate?: KeyAggregate | 'MIN' | 'MAX' | null;
}

function keyOf({ stat, order, max, aggregate }: NewKeyInput): BoardKey {
  if (aggregate === 'MIN' || aggregate === 'MAX') {
    const implied = aggregate === 'MIN' ? 'ASC' : 'DESC';
    if (order != null && order !== implied)
      throw badInput('keys', `key ${stat}: ${aggregate} is BEST on an ${implied} key`);
    return { stat, order: implied, max };
  }
  return { stat, order: order ?? 'DESC', max, ...(aggregate === 'SUM' ? { aggregate } : {}) };
}

/** One board of a new season; unset rules are the season's. */
interface NewBoardInput {
  name: string;
  /** The stat it ranks; absent: the board's name. */
  stat?: string | null;
  /** 2..5 stats it ranks by, most significant first (instead of stat). */
  keys?: ReadonlyArray<NewKeyInput> | null;
  scoring?: ScoringMode | null;
  order?: SortOrder | null;
  rankStyle?: RankStyle | null;
  /** The stat's range is 0..maxValue (one key; the keys carry theirs). */
  maxValue?: number | null;
  timeUnitSeconds?: number | null;
  windows?: readonly Window[] | null;
  resetOffsetMinutes?: number | null;
  /** Hours of each CUSTOM period; absent: the season's when the board keeps CUSTOM. */
  periodHours?: number | null;
  shardBounds?: readonly number[] | null;
}

/** Most boards one season keeps. */
export const MAX_BOARDS = 8;

/** A new season with its further boards: each a definition of its own. */
export type NewSeason = SeasonDefinition & { shards?: ShardChoice; boards?: SeasonDefinition[] };

/**
 * A board's definition: the season's times and defaults, its own stat or keys and rules. A
 * multi-key board is BEST (or LAST) and DESC on its packed points (domain/board-keys.ts), each key
 * its own direction; its points take the keys' bits and the time what is left (at most 32 bits).
 */
function boardDefinition(season: NewSeasonInput, board: NewBoardInput): SeasonDefinition {
  checkName(board.name, 'boards');
  const keys = board.keys?.map(keyOf);
  const windows = board.windows ?? season.windows;
  const base = {
    name: season.name,
    startsAt: season.startsAt,
    endsAt: season.endsAt,
    board: board.name,
    rankStyle: board.rankStyle ?? season.rankStyle ?? 'ORDINAL',
    ...definedOf({
      windows,
      resetOffsetMinutes: board.resetOffsetMinutes ?? season.resetOffsetMinutes,
      periodHours: board.periodHours ?? (windows?.includes('CUSTOM') ? season.periodHours : undefined),
      shardBounds: board.shardBounds && [...board.shardBounds],
    }),
  };
  if (keys) {
    if (board.stat != null || board.maxValue != null)
      throw badInput('boards', `board ${board.name}: give keys, or stat and maxValue, not both`);
    if (board.scoring === 'SUM' || board.order != null)
      throw badInput('boards', `board ${board.name}: a multi-key board is BEST or LAST, each key with its own order`);
    validateKeys(keys);
    if (board.scoring === 'LAST' && aggregatesPerKey(keys))
      throw badInput('boards', `board ${board.name}: a LAST board ranks its latest match's tuple; its keys do not SUM`);
    const maxPointsPerMatch = packedMax(keys);
    const split = boardSplit('BEST', maxPointsPerMatch, board.timeUnitSeconds);
    return { ...base, keys, scoring: board.scoring ?? 'BEST', order: 'DESC', maxPointsPerMatch, split };
  }
  const stat = board.stat ?? board.name;
  checkName(stat, 'boards');
  if (board.maxValue == null) throw badInput('boards', `board ${board.name}: maxValue is required (or keys)`);
  const scoring = board.scoring ?? season.scoring ?? 'BEST';
  return {
    ...base,
    stat,
    scoring,
    order: board.order ?? season.order ?? 'DESC',
    maxPointsPerMatch: board.maxValue,
    split: boardSplit(scoring, board.maxValue, board.timeUnitSeconds),
  };
}

/**
 * A board's score split: its scoring's default, with more point bits when its values need them
 * (a wide stat, or packed keys) and the time the bits left (validateSeasonDefinition checks the
 * season fits).
 */
function boardSplit(scoring: ScoringMode, maxValue: number, timeUnitSeconds: number | null | undefined): ScoreSplit {
  const d = defaultSplit(scoring);
  const pointsBits = Math.max(d.pointsBits, Number.isInteger(maxValue) ? maxValue.toString(2).length : 0);
  return splitWithDefaults(scoring, { pointsBits, timeBits: Math.min(d.timeBits, 53 - pointsBits), timeUnitSeconds });
}

/** The fields of `o` that are set (not null or undefined). */
function definedOf<T extends object>(o: T): Partial<{ [K in keyof T]: NonNullable<T[K]> }> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v != null)) as Partial<{
    [K in keyof T]: NonNullable<T[K]>;
  }>;
}

/** A season declared by its boards: the first one is the season's own row, the others its further boards. */
function seasonOfBoards(input: NewSeasonInput, boards: readonly NewBoardInput[]): NewSeason {
  const { maxPointsPerMatch, pointsBits, timeBits, timeUnitSeconds, shardBounds, shards, shardsFromSeasonId } = input;
  if (
    [maxPointsPerMatch, pointsBits, timeBits, timeUnitSeconds, shardBounds, shards, shardsFromSeasonId].some(
      (v) => v != null,
    )
  )
    throw badInput(
      'boards',
      'with boards, give maxValue, timeUnitSeconds and shardBounds per board (not maxPointsPerMatch, the split or shards)',
    );
  if (!Array.isArray(boards) || boards.length < 1 || boards.length > MAX_BOARDS)
    throw badInput('boards', `boards must hold 1..${MAX_BOARDS} boards`);
  if (new Set(boards.map((b) => b.name)).size !== boards.length)
    throw badInput('boards', 'board names must be distinct');
  const [first, ...rest] = boards.map((b) => boardDefinition(input, b));
  return { ...first!, boards: rest };
}

/**
 * What createSeason takes (reward rules checked against its boards): DESC, ORDINAL and the
 * scoring's split by default, a shard choice when one is asked.
 */
export function newSeasonOf(input: NewSeasonInput): NewSeason {
  const season = newSeasonWithoutRewards(input);
  if (input.repeats) season.repeats = true;
  const { groupBestOf } = input;
  if (groupBestOf != null && (!Number.isInteger(groupBestOf) || groupBestOf < 1 || groupBestOf > 1000))
    throw badInput('groupBestOf', 'groupBestOf must be an integer in 1..1000');
  // Every board of the season totals its groups the same way, and is in its league.
  if (input.league != null) {
    const league = leagueOf(input.league);
    season.league = league;
    season.boards = season.boards?.map((b) => ({ ...b, league }));
  }
  const grouped =
    groupBestOf == null
      ? season
      : { ...season, groupBestOf, boards: season.boards?.map((b) => ({ ...b, groupBestOf })) };
  if (input.rewards == null || input.rewards.length === 0) return grouped;
  const boards = [season, ...(season.boards ?? [])].map((b) => ({ name: boardName(b), windows: windowsOf(b) }));
  return { ...grouped, rewards: rewardRulesOf(input.rewards, boards, input.league != null) };
}

function newSeasonWithoutRewards(input: NewSeasonInput): NewSeason {
  if (input.boards != null) return seasonOfBoards(input, input.boards);
  if (input.maxPointsPerMatch == null)
    throw badInput('maxPointsPerMatch', 'maxPointsPerMatch is required (or boards, each with its maxValue)');
  const scoring = input.scoring ?? 'BEST';
  const {
    pointsBits,
    timeBits,
    timeUnitSeconds,
    shardBounds,
    shards,
    shardsFromSeasonId,
    windows,
    resetOffsetMinutes,
    periodHours,
  } = input;
  const { name, startsAt, endsAt, maxPointsPerMatch } = input;
  const sharded = shardBounds ?? shards ?? shardsFromSeasonId;
  return {
    name,
    startsAt,
    endsAt,
    scoring,
    maxPointsPerMatch,
    ...(windows == null ? {} : { windows: [...windows] }),
    ...(resetOffsetMinutes == null ? {} : { resetOffsetMinutes }),
    ...(periodHours == null ? {} : { periodHours }),
    order: input.order ?? 'DESC',
    rankStyle: input.rankStyle ?? 'ORDINAL',
    split: splitWithDefaults(scoring, { pointsBits, timeBits, timeUnitSeconds }),
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

/**
 * Validates and stores a new season and its further boards, every one validated before any is
 * stored, all stored in one transaction; its status follows from its times.
 */
export async function createSeason(store: SeasonStore, input: NewSeason, now: Date): Promise<Season> {
  const { shards, boards = [], ...rest } = input;
  const def: SeasonDefinition = shards ? { ...rest, shardBounds: await chooseShardBounds(store, rest, shards) } : rest;
  const splits = [def, ...boards].map((d) => validateSeasonDefinition(d));
  const status = seasonStatusAt({ status: 'SCHEDULED', startsAt: def.startsAt, endsAt: def.endsAt }, now);
  if (status === 'CLOSED') throw badInput('endsAt', 'endsAt is in the past');
  return store.insert(
    def,
    splits[0]!,
    status,
    boards.map((board, i) => ({ def: board, split: splits[i + 1]! })),
  );
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
