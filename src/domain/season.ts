import type { RewardRule } from './rewards.js';
import type { League } from './leagues.js';
import { badInput, pointsOutOfRange, timeOutOfRange } from './errors.js';
import { validateShardBounds, type ShardLayout } from './shards.js';
import type { Turnover } from './windows.js';

/**
 * BEST: a player's score is their best single match; SUM: the total of their matches; LAST: their
 * latest match (a rating, a level: it may go down).
 */
export type ScoringMode = 'BEST' | 'SUM' | 'LAST';
/** DESC: more points rank first; ASC: fewer points rank first (time trials). */
export type SortOrder = 'DESC' | 'ASC';
/** ORDINAL: 1,2,3,4 (earlier achievement wins a tie); COMPETITION: 1,2,2,4 (equal points share a rank). */
export type RankStyle = 'ORDINAL' | 'COMPETITION';
/**
 * The windows a board can keep: the whole season, each UTC day, each ISO week, each UTC calendar
 * month (these three turning over at the season's reset offset), and each span of the board's
 * periodHours from its start (CUSTOM). A season keeps SEASON and the ones it declares (Season.windows).
 */
export type Window = 'SEASON' | 'DAY' | 'WEEK' | 'MONTH' | 'CUSTOM';
/** Lifecycle of a season; see seasonStatusAt for the status at a given instant. */
export type SeasonStatus = 'SCHEDULED' | 'ACTIVE' | 'CLOSED';

/** How a composite score's 53 bits are shared between points and time since season start. */
export interface ScoreSplit {
  pointsBits: number;
  timeBits: number;
  timeUnitSeconds: number;
}

/**
 * One key of a multi-key board: a stat, its direction, its largest value (its range is 0..max),
 * and how a player's results combine on it (domain/key-aggregates.ts): BEST (absent) keeps the
 * best value in its order, SUM (DESC only) adds them up.
 */
export interface BoardKey {
  stat: string;
  order: SortOrder;
  max: number;
  aggregate?: KeyAggregate;
}
/** How one key of a multi-key board combines a player's results. */
export type KeyAggregate = 'BEST' | 'SUM';

/**
 * A season, or one of its further boards (docs/design.md#boards). Each board of a season is a row
 * of its own, with its own rules, windows and Redis keys; the season's row is its first board, the
 * others name it as their parent. A board ranks one stat (`stat`) or several (`keys`, packed into
 * its points: domain/board-keys.ts).
 */
export interface Season {
  id: number;
  name: string;
  startsAt: Date;
  endsAt: Date;
  status: SeasonStatus;
  scoring: ScoringMode;
  order: SortOrder;
  rankStyle: RankStyle;
  maxPointsPerMatch: number;
  split: ScoreSplit;
  /** Set once the season was closed and its final standings written: its boards live in PostgreSQL only. */
  finalizedAt?: Date | null;
  /** Score-range shards of its boards (domain/shards.ts); none: each board is one Redis key. */
  shards?: ShardLayout | null;
  /** The windows it keeps, SEASON first (windowsOf); absent: DEFAULT_WINDOWS. */
  windows?: readonly Window[] | undefined;
  /** Minutes after UTC midnight its DAY, WEEK and MONTH periods turn over (0..1439); absent: 0. */
  resetOffsetMinutes?: number | undefined;
  /** Hours of each CUSTOM period, from startsAt (1..8784); set exactly when it keeps CUSTOM. */
  periodHours?: number | null | undefined;
  /** The board's name within its season; absent: 'points'. */
  board?: string | undefined;
  /** The stat it ranks (a result's `points` is the stat 'points'); absent: 'points'. Unused with keys. */
  stat?: string | undefined;
  /** The keys of a multi-key board, most significant first; absent: one key, `stat`. */
  keys?: readonly BoardKey[] | null | undefined;
  /** Set on a further board: the season (its first board) it belongs to. */
  parentId?: number | null | undefined;
  /** On a season's own row: its further boards, in the order they were declared. */
  boards?: readonly Season[] | undefined;
  /** On a season's own row: its reward rules, granted at its close (domain/rewards.ts). */
  rewards?: readonly RewardRule[] | null | undefined;
  /** A group's total on a group board: its best N members' points; absent or 0: every member's. */
  groupBestOf?: number | null | undefined;
  /** In league mode (every board of the season carries it): its league (domain/leagues.ts). */
  league?: League | null | undefined;
  /** On a season's own row: once it is final the next one is created (service/season-rollover.ts). */
  repeats?: boolean | undefined;
  /** The season this one was created to follow; null: created by an admin. */
  follows?: number | null | undefined;
}

/** What an administrator supplies to create a season; `split` defaults per scoring mode. */
export interface SeasonDefinition {
  name: string;
  startsAt: Date;
  endsAt: Date;
  scoring: ScoringMode;
  order: SortOrder;
  rankStyle: RankStyle;
  maxPointsPerMatch: number;
  split?: ScoreSplit | undefined;
  /** Points that separate score-range shards (domain/shards.ts); absent: one Redis key per board. */
  shardBounds?: number[] | undefined;
  /** The windows to keep (SEASON among them); absent: DEFAULT_WINDOWS. */
  windows?: readonly Window[] | undefined;
  /** When DAY, WEEK and MONTH turn over, in minutes after UTC midnight; absent: 0. */
  resetOffsetMinutes?: number | undefined;
  /** Hours of each CUSTOM period (1..8784), exactly when windows holds CUSTOM. */
  periodHours?: number | undefined;
  /** The board it defines (absent: 'points', the stat 'points'), and the season it belongs to. */
  board?: string | undefined;
  stat?: string | undefined;
  keys?: readonly BoardKey[] | undefined;
  parentId?: number | undefined;
  /** On a season's own definition: its reward rules, checked (domain/rewards.ts rewardRulesOf). */
  rewards?: readonly RewardRule[] | undefined;
  /** Group boards total each group's best N members (absent: all of them). */
  groupBestOf?: number | undefined;
  /** League mode (domain/leagues.ts), on every board of the season. */
  league?: League | undefined;
  /** On a season's own definition: it repeats (service/season-rollover.ts). */
  repeats?: boolean | undefined;
  /** The season it follows (a repeating season's successor). */
  follows?: number | undefined;
}

/** Every board of a season, its own first; a further board has only itself. */
export function boardsOf(season: Season): readonly Season[] {
  return season.boards ? [season, ...season.boards] : [season];
}

/** The seasons among `rows` (seasons and further boards alike), each with its further boards, in id order. */
export function seasonsWithBoards(rows: readonly Season[]): Season[] {
  const byParent = new Map<number, Season[]>();
  for (const r of [...rows].sort((a, b) => a.id - b.id))
    if (r.parentId != null) byParent.set(r.parentId, [...(byParent.get(r.parentId) ?? []), r]);
  return rows.flatMap((r) => {
    if (r.parentId != null) return [];
    const boards = byParent.get(r.id);
    return [boards ? { ...r, boards } : r];
  });
}

/** The name of a season's board. */
export const boardName = (season: Pick<Season, 'board'>): string => season.board ?? 'points';

/** The season a board belongs to (its own id for a season's first board). */
export const seasonIdOf = (board: Pick<Season, 'id' | 'parentId'>): number => board.parentId ?? board.id;

/** Every window, in the order of the board_window enum (the standings key's order). */
export const ALL_WINDOWS: readonly Window[] = ['SEASON', 'DAY', 'WEEK', 'MONTH', 'CUSTOM'];
/** Longest CUSTOM period, in hours: a leap year. */
const MAX_PERIOD_HOURS = 8784;
/** The windows of a season that declares none: what every season kept before windows were chosen. */
const DEFAULT_WINDOWS: readonly Window[] = ['SEASON', 'DAY', 'WEEK'];

/** The windows a season keeps, in ALL_WINDOWS order. */
export function windowsOf(season: Pick<Season, 'windows'>): readonly Window[] {
  return season.windows ?? DEFAULT_WINDOWS;
}

/** How long after UTC midnight a season's periods turn over, in ms. */
export function resetOffsetMs(season: Pick<Season, 'resetOffsetMinutes'>): number {
  return (season.resetOffsetMinutes ?? 0) * 60_000;
}

/** When a board's periods turn over (domain/windows.ts): its reset offset, and its CUSTOM span from startsAt. */
export function turnoverOf(board: Pick<Season, 'resetOffsetMinutes' | 'periodHours' | 'startsAt'>): Turnover {
  return { offsetMs: resetOffsetMs(board), anchor: board.startsAt, periodHours: board.periodHours };
}

/** CUSTOM is kept exactly when periodHours is given, an integer in 1..MAX_PERIOD_HOURS. */
function validatePeriodHours(input: Pick<SeasonDefinition, 'windows' | 'periodHours'>): void {
  const custom = input.windows?.includes('CUSTOM') ?? false;
  if (input.periodHours === undefined) {
    if (custom) throw badInput('periodHours', 'a CUSTOM window needs periodHours (the hours of each period)');
    return;
  }
  if (!isIntIn(input.periodHours, 1, MAX_PERIOD_HOURS))
    throw badInput('periodHours', `periodHours must be an integer in 1..${MAX_PERIOD_HOURS} (a day is 24)`);
  if (!custom) throw badInput('periodHours', 'periodHours needs the CUSTOM window among windows');
}

/** The windows as a season stores them: the ones declared, SEASON included, in ALL_WINDOWS order. */
function validateWindows(windows: readonly Window[] | undefined): void {
  if (windows === undefined) return;
  if (
    !Array.isArray(windows) ||
    windows.some((w) => !ALL_WINDOWS.includes(w)) ||
    new Set(windows).size !== windows.length
  )
    throw badInput('windows', `windows must be distinct values of ${ALL_WINDOWS.join(', ')}`);
  if (!windows.includes('SEASON'))
    throw badInput('windows', 'windows must include SEASON: a season always keeps its whole-season board');
}

/** Largest value a GraphQL Int (signed 32-bit) can carry; points are exposed as one. */
export const MAX_GRAPHQL_INT = 2 ** 31 - 1;
/** Bits of a double's mantissa: every integer below 2^53 is stored exactly by Redis. */
const SCORE_BITS = 53;
/** Longest season name, in Unicode code points (what PostgreSQL's varchar(n) counts). */
const MAX_SEASON_NAME_LENGTH = 100;

/** The split used when a season does not choose one. */
export function defaultSplit(scoring: ScoringMode): ScoreSplit {
  // BEST: 2^21-1 points per match, 2^32 s ≈ 136 years. SUM totals grow past any single match,
  // so they take the full GraphQL Int range and pay with a coarser clock: 2^22 minutes ≈ 8 years.
  // LAST holds one match's value, like BEST.
  return scoring !== 'SUM'
    ? { pointsBits: 21, timeBits: 32, timeUnitSeconds: 1 }
    : { pointsBits: 31, timeBits: 22, timeUnitSeconds: 60 };
}

/** A split chosen in part (unset parts: undefined or null, as GraphQL gives them). */
export type PartialSplit = { [K in keyof ScoreSplit]?: number | null };

/** The split a season gets: the parts chosen, the rest from the default of its scoring mode. */
export function splitWithDefaults(scoring: ScoringMode, chosen: PartialSplit = {}): ScoreSplit {
  const d = defaultSplit(scoring);
  return {
    pointsBits: chosen.pointsBits ?? d.pointsBits,
    timeBits: chosen.timeBits ?? d.timeBits,
    timeUnitSeconds: chosen.timeUnitSeconds ?? d.timeUnitSeconds,
  };
}

function isIntIn(n: number, min: number, max: number): boolean {
  return Number.isInteger(n) && n >= min && n <= max;
}

function isValidDate(d: unknown): d is Date {
  return d instanceof Date && !Number.isNaN(d.getTime());
}

function validateName(name: string): void {
  const length = [...name].length;
  if (name.trim().length === 0 || length > MAX_SEASON_NAME_LENGTH) {
    throw badInput('name', `name must be 1..${MAX_SEASON_NAME_LENGTH} characters and not blank`);
  }
  // Names end up in admin UIs and logs; a control character there is never intended.
  if (/\p{Cc}/u.test(name)) throw badInput('name', 'name must not contain control characters');
}

function validateSplitShape(split: ScoreSplit): void {
  if (!isIntIn(split.pointsBits, 1, 31)) {
    // Points are returned as a GraphQL Int, so a board can never need more than 31 bits of them.
    throw badInput('pointsBits', 'pointsBits must be an integer in 1..31');
  }
  if (!isIntIn(split.timeBits, 1, SCORE_BITS - split.pointsBits)) {
    throw badInput('timeBits', `timeBits must be an integer >= 1 with pointsBits + timeBits <= ${SCORE_BITS}`);
  }
  if (!isIntIn(split.timeUnitSeconds, 1, 86_400)) {
    throw badInput('timeUnitSeconds', 'timeUnitSeconds must be an integer in 1..86400');
  }
}

/**
 * Checks a season definition and returns the split it will use; throws DomainError
 * (BAD_USER_INPUT, POINTS_OUT_OF_RANGE or TIME_OUT_OF_RANGE) naming the offending field.
 */
export function validateSeasonDefinition(input: SeasonDefinition): ScoreSplit {
  validateName(input.name);
  if (!isValidDate(input.startsAt)) throw badInput('startsAt', 'startsAt must be a valid date');
  if (!isValidDate(input.endsAt)) throw badInput('endsAt', 'endsAt must be a valid date');
  if (input.endsAt.getTime() <= input.startsAt.getTime()) {
    throw badInput('endsAt', 'endsAt must be after startsAt');
  }
  if (!isIntIn(input.maxPointsPerMatch, 1, MAX_GRAPHQL_INT)) {
    throw badInput('maxPointsPerMatch', `maxPointsPerMatch must be an integer in 1..${MAX_GRAPHQL_INT}`);
  }
  // A running total only grows, and boards are written with ZADD GT (a score may only rise).
  // On an ASC board a growing total must rank worse, i.e. its stored score would have to fall,
  // which ZADD GT silently refuses: the board would freeze at the first result. So reject it.
  if (input.scoring === 'SUM' && input.order === 'ASC') {
    throw badInput('order', 'SUM scoring requires DESC order: a running total can only grow');
  }
  const split = input.split ?? defaultSplit(input.scoring);
  validateSplitShape(split);

  const maxPoints = 2 ** split.pointsBits - 1;
  if (input.maxPointsPerMatch > maxPoints) {
    throw pointsOutOfRange(
      'maxPointsPerMatch',
      `maxPointsPerMatch ${input.maxPointsPerMatch} does not fit in ${split.pointsBits} point bits (max ${maxPoints})`,
    );
  }
  // BigInt: a float ceil(a / b) can land one unit off for dates far apart, exactly at the limit.
  const unitMs = BigInt(split.timeUnitSeconds) * 1000n;
  const durationMs = BigInt(input.endsAt.getTime()) - BigInt(input.startsAt.getTime());
  const durationUnits = (durationMs + unitMs - 1n) / unitMs;
  const maxTime = 2 ** split.timeBits - 1;
  if (durationUnits > BigInt(maxTime)) {
    throw timeOutOfRange(
      'endsAt',
      `season lasts ${durationUnits} units of ${split.timeUnitSeconds}s; ${split.timeBits} time bits hold at most ${maxTime}`,
    );
  }
  if (input.shardBounds) {
    // Writes to a sharded board only raise scores (redis/sharded-raise.ts); a LAST score may fall.
    if (input.scoring === 'LAST')
      throw badInput('shardBounds', 'a LAST board cannot be sharded: its scores may go down');
    validateShardBounds(input.shardBounds, maxPoints);
  }
  validateWindows(input.windows);
  validatePeriodHours(input);
  if (input.resetOffsetMinutes !== undefined && !isIntIn(input.resetOffsetMinutes, 0, 1439))
    throw badInput(
      'resetOffsetMinutes',
      'resetOffsetMinutes must be an integer in 0..1439 (minutes after UTC midnight)',
    );
  return { ...split };
}

/** The status a season has at `now`: the stored status only ever moves it towards CLOSED. */
export function seasonStatusAt(season: Pick<Season, 'status' | 'startsAt' | 'endsAt'>, now: Date): SeasonStatus {
  // A season closes at endsAt even if the close job has not run yet.
  if (season.status === 'CLOSED' || now.getTime() >= season.endsAt.getTime()) return 'CLOSED';
  if (now.getTime() < season.startsAt.getTime()) return 'SCHEDULED';
  return 'ACTIVE';
}
