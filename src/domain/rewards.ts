import { badInput } from './errors.js';
import { metadataText } from './result-message.js';
import type { Window } from './season.js';
import { periodEnd, periodOf, periodStart, type Turnover } from './windows.js';

// Rewards (docs/design.md#rewards): a season declares rules by rank; at its close each player a
// rule covers is granted the rule's reward once, from the exact final standings.

/** What a rule ranks its players within, rather than the whole board (COHORT: league seasons only). */
type RewardPer = 'REGION' | 'GROUP' | 'COHORT';

/** Which final places a rule rewards: a range of ranks, the top percent, or everyone ranked. */
type RewardPlaces = { ranks: { from: number; to: number } } | { topPercent: number } | { everyone: true };

/** A reward rule of a season, as stored on its row. */
export type RewardRule = {
  /** Its name within the season: a-z, 0-9, _; part of every grant's key. */
  name: string;
  /** The board it ranks by (a name among the season's boards). */
  board: string;
  /** Rank within each region, group (domain/scopes.ts) or league cohort rather than on the whole board. */
  per?: RewardPer | undefined;
  /** Granted for each DAY, WEEK or MONTH period as it ends (absent: once, at the season's close). */
  window?: PeriodWindow | undefined;
  /** What the game's economy service grants: a JSON object of at most 1 KB (an item, an amount). */
  reward: Record<string, unknown>;
} & RewardPlaces;

/** Most reward rules one season declares. */
export const MAX_REWARD_RULES = 16;
const NAME = /^[a-z][a-z0-9_]{0,31}$/;

/** A rule as an admin states it: exactly one of ranks, topPercent, everyone. */
export interface RewardRuleInput {
  name: string;
  board?: string | null;
  window?: Window | null;
  per?: RewardPer | null;
  fromRank?: number | null;
  toRank?: number | null;
  topPercent?: number | null;
  everyone?: boolean | null;
  reward: Record<string, unknown>;
}

type PeriodWindow = Exclude<Window, 'SEASON'>;

/**
 * Checked rules of a season whose boards are `boards` (the first the default), with the windows
 * each keeps; `league`: the season is in league mode (a rule may rank per cohort).
 */
export function rewardRulesOf(
  inputs: readonly RewardRuleInput[],
  boards: ReadonlyArray<{ name: string; windows: readonly Window[] }>,
  league = false,
): RewardRule[] {
  if (inputs.length > MAX_REWARD_RULES)
    throw badInput('rewards', `a season declares at most ${MAX_REWARD_RULES} rules`);
  const names = new Set<string>();
  return inputs.map((r) => {
    if (typeof r.name !== 'string' || !NAME.test(r.name))
      throw badInput(
        'rewards',
        `rule name ${JSON.stringify(r.name)}: a-z, 0-9 and _, starting with a letter, at most 32`,
      );
    if (names.has(r.name)) throw badInput('rewards', `rule names must be distinct (${r.name})`);
    names.add(r.name);
    const board = boards.find((b) => b.name === (r.board ?? boards[0]!.name));
    if (!board)
      throw badInput(
        'rewards',
        `rule ${r.name}: the season has no board ${JSON.stringify(r.board)}; it has ${boards.map((b) => b.name).join(', ')}`,
      );
    const window = r.window ?? 'SEASON';
    if (!board.windows.includes(window))
      throw badInput('rewards', `rule ${r.name}: board ${board.name} keeps no ${window} board`);
    if (r.per === 'COHORT' && !league)
      throw badInput('rewards', `rule ${r.name}: per COHORT needs a league season (league)`);
    metadataText(r.reward); // an object of at most 1 KB of JSON, like result metadata
    const base = {
      name: r.name,
      board: board.name,
      reward: r.reward,
      ...(r.per ? { per: r.per } : {}),
      ...(window === 'SEASON' ? {} : { window: window as PeriodWindow }),
    };
    const ranks = r.fromRank != null || r.toRank != null;
    if (Number(ranks) + Number(r.topPercent != null) + Number(r.everyone === true) !== 1)
      throw badInput('rewards', `rule ${r.name}: give exactly one of fromRank..toRank, topPercent and everyone`);
    if (ranks) {
      const from = r.fromRank ?? 1;
      const to = r.toRank ?? from;
      if (!Number.isInteger(from) || !Number.isInteger(to) || from < 1 || to < from || to > 10_000_000)
        throw badInput('rewards', `rule ${r.name}: ranks must be integers with 1 <= fromRank <= toRank <= 10000000`);
      return { ...base, ranks: { from, to } };
    }
    if (r.topPercent != null) {
      if (!(r.topPercent > 0 && r.topPercent <= 100))
        throw badInput('rewards', `rule ${r.name}: topPercent must be in (0, 100]`);
      return { ...base, topPercent: r.topPercent };
    }
    return { ...base, everyone: true };
  });
}

/**
 * One grant of a rule to a player, as PostgreSQL stores it and Kafka carries it. Its key, season/board/
 * window/period/scope/player/rule, is its idempotency key: the economy service dedupes on it.
 */
export interface Reward {
  key: string;
  seasonId: number;
  board: string;
  window: string;
  period: string;
  /** '' on the whole board; a scope (`r:BR`, `g:wolves`, `c:2.0`) for a rule `per` region, group or cohort. */
  scope: string;
  playerId: string;
  rule: string;
  /** The final rank it was granted for (within the scope for a `per` rule), and the points then. */
  rank: number;
  points: number;
  reward: Record<string, unknown>;
  grantedAt: Date;
  claimedAt: Date | null;
}

/** How many ended periods back a pass looks for one not granted yet (a scheduler down for days). */
const PERIODS_BACK = 8;

/**
 * The periods of `window` of a season that ended at least `delayMs` before `now` (so late results
 * had time to land), newest first, at most PERIODS_BACK of them, none before the season started.
 */
export function endedPeriods(
  season: { startsAt: Date; endsAt: Date },
  window: PeriodWindow,
  now: Date,
  delayMs: number,
  turnover: Turnover | number = 0,
): string[] {
  const out: string[] = [];
  let at = new Date(Math.min(now.getTime() - delayMs, season.endsAt.getTime() - 1));
  while (out.length < PERIODS_BACK && at >= season.startsAt) {
    const period = periodOf(window, at, turnover);
    if (periodEnd(window, period, season.endsAt, turnover).getTime() <= now.getTime() - delayMs) out.push(period);
    at = new Date(periodStart(window, period, season.startsAt, turnover).getTime() - 1);
  }
  return out;
}
