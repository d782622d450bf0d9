import { badInput } from './errors.js';
import { metadataText } from './result-message.js';

// Rewards (docs/design.md#rewards): a season declares rules by rank; at its close each player a
// rule covers is granted the rule's reward once, from the exact final standings.

/** Which final places a rule rewards: a range of ranks, the top percent, or everyone ranked. */
type RewardPlaces = { ranks: { from: number; to: number } } | { topPercent: number } | { everyone: true };

/** A reward rule of a season, as stored on its row. */
export type RewardRule = {
  /** Its name within the season: a-z, 0-9, _; part of every grant's key. */
  name: string;
  /** The board it ranks by (a name among the season's boards). */
  board: string;
  /** Rank within each region or each group (domain/scopes.ts) rather than on the whole board. */
  per?: 'REGION' | 'GROUP' | undefined;
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
  per?: 'REGION' | 'GROUP' | null;
  fromRank?: number | null;
  toRank?: number | null;
  topPercent?: number | null;
  everyone?: boolean | null;
  reward: Record<string, unknown>;
}

/** Checked rules of a season whose boards are `boards` (their names, the first the default). */
export function rewardRulesOf(inputs: readonly RewardRuleInput[], boards: readonly string[]): RewardRule[] {
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
    const board = r.board ?? boards[0]!;
    if (!boards.includes(board))
      throw badInput(
        'rewards',
        `rule ${r.name}: the season has no board ${JSON.stringify(board)}; it has ${boards.join(', ')}`,
      );
    metadataText(r.reward); // an object of at most 1 KB of JSON, like result metadata
    const base = { name: r.name, board, reward: r.reward, ...(r.per ? { per: r.per } : {}) };
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
  /** '' on the whole board; a scope (`r:BR`, `g:wolves`) for a rule `per` region or group. */
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
