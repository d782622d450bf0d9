import { badInput } from './errors.js';

// Leagues (docs/design.md#leagues): a season in league mode places each player, at their first
// result, in a cohort of at most `cohortSize` players of their tier; each cohort is its own board
// (the scope `c:<tier>.<cohort>`). At the close the best `promote` of each cohort move up a tier
// and the worst `relegate` down, for the league's next season.

/** A league as a season declares it. */
export interface League {
  /** The league's id, shared by its seasons: players' tiers carry over between them. */
  name: string;
  /** Tier names, lowest first (Bronze, Silver, Gold, ...). */
  tiers: string[];
  cohortSize: number;
  promote: number;
  relegate: number;
  /**
   * How players are put in cohorts at their first result: ARRIVAL (absent), first come first served
   * within their tier; RANK, by their seed (their place in the tier by the last close's final
   * positions) so the best play together, those without one first come first served after them.
   */
  placement?: 'ARRIVAL' | 'RANK' | undefined;
}

/** A league as an admin states it (placement may be null). */
export type LeagueInput = Omit<League, 'placement'> & { placement?: League['placement'] | null };

const NAME = /^[a-z][a-z0-9_-]{0,31}$/;

/** A checked league; BAD_USER_INPUT 'league' otherwise. */
export function leagueOf(input: LeagueInput): League {
  const { name, tiers, cohortSize, promote, relegate, placement } = input;
  const bad = (why: string) => badInput('league', `league: ${why}`);
  if (typeof name !== 'string' || !NAME.test(name))
    throw bad('name: a-z, 0-9, _ and -, starting with a letter, at most 32');
  if (!Array.isArray(tiers) || tiers.length < 1 || tiers.length > 20) throw bad('1 to 20 tiers');
  if (new Set(tiers).size !== tiers.length || tiers.some((t) => typeof t !== 'string' || t.length < 1 || t.length > 32))
    throw bad('tier names are distinct, 1 to 32 characters');
  if (!Number.isInteger(cohortSize) || cohortSize < 2 || cohortSize > 1000) throw bad('cohortSize in 2..1000');
  for (const [field, n] of [
    ['promote', promote],
    ['relegate', relegate],
  ] as const)
    if (!Number.isInteger(n) || n < 0 || n > cohortSize) throw bad(`${field} in 0..cohortSize`);
  if (promote + relegate > cohortSize) throw bad('promote + relegate at most cohortSize');
  if (placement != null && placement !== 'ARRIVAL' && placement !== 'RANK') throw bad('placement: ARRIVAL or RANK');
  return { name, tiers: [...tiers], cohortSize, promote, relegate, ...(placement === 'RANK' ? { placement } : {}) };
}

/**
 * The cohort of a seeded player (placement RANK): seeds 1..cohortSize fill cohort 0, and so on;
 * players without a seed fill the cohorts after the last seeded one (ceil(max seed / cohortSize)).
 */
export const seededCohort = (league: League, seed: number): number => Math.floor((seed - 1) / league.cohortSize);

/** The scope of a cohort (domain/scopes.ts): `c:<tier>.<cohort>`. */
export const cohortScope = (tier: number, cohort: number): string => `c:${tier}.${cohort}`;

/** Where a final rank in a cohort of `size` puts a player of `tier`: the tier they move to (the same: stays). */
function tierAfter(league: League, tier: number, rank: number, size: number): number {
  if (rank <= league.promote && tier < league.tiers.length - 1) return tier + 1;
  if (rank > size - league.relegate && tier > 0) return tier - 1;
  return tier;
}

/** The zone of a rank in a cohort of `size`: what the close would do to the player now. */
export function zoneOf(league: League, tier: number, rank: number, size: number): 'PROMOTION' | 'RELEGATION' | 'STAY' {
  const to = tierAfter(league, tier, rank, size);
  return to > tier ? 'PROMOTION' : to < tier ? 'RELEGATION' : 'STAY';
}
