// Differences between a board in PostgreSQL (the truth) and its Redis mirror, found by reconcile.
import { isDomainError } from './errors.js';
import { parsePlayerId } from './result-message.js';

/** missing: in PostgreSQL, not in Redis; extra: in Redis only; different: both, other score. */
export type DriftKind = 'missing' | 'extra' | 'different';

/** The kinds in report order. */
export const DRIFT_KINDS: readonly DriftKind[] = ['missing', 'extra', 'different'];

/** How many player ids of each kind a report keeps as a sample. */
export const DEFAULT_SAMPLE_SIZE = 20;

/** Counts of one board (or a whole season) with a capped sample of player ids per kind. */
export interface DriftTally {
  pgCount: number;
  redisCount: number;
  missing: number;
  extra: number;
  different: number;
  /** Board entries written or removed by a repair. */
  repaired: number;
  /** PostgreSQL standings no composite score can hold (a SUM total past the point bits): never on a board. */
  unencodable: number;
  samples: Record<DriftKind, string[]>;
}

/** A tally with every count zero. */
export function emptyTally(): DriftTally {
  return {
    pgCount: 0,
    redisCount: 0,
    missing: 0,
    extra: 0,
    different: 0,
    repaired: 0,
    unencodable: 0,
    samples: { missing: [], extra: [], different: [] },
  };
}

/**
 * What a player's Redis score says about the board, given the score PostgreSQL implies:
 * `expected` null = no standing; `actual` null = not on the board. Scores are compared as the
 * integer strings Redis prints, so a float written by hand ("1.5") counts as different.
 */
export function classify(expected: string | null, actual: string | null): DriftKind | undefined {
  if (expected === null) return actual === null ? undefined : 'extra';
  if (actual === null) return 'missing';
  return expected === actual ? undefined : 'different';
}

/** Counts one drifted player into `tally`, keeping the first `sampleSize` ids of each kind. */
export function countDrift(tally: DriftTally, kind: DriftKind, playerId: string, sampleSize: number): void {
  tally[kind]++;
  if (tally.samples[kind].length < sampleSize) tally.samples[kind].push(playerId);
}

/** Adds `part` into `total` (counts summed, samples appended up to `sampleSize`). */
export function addTally(total: DriftTally, part: DriftTally, sampleSize: number): void {
  for (const k of ['pgCount', 'redisCount', 'missing', 'extra', 'different', 'repaired', 'unencodable'] as const) {
    total[k] += part[k];
  }
  for (const kind of DRIFT_KINDS) {
    const room = sampleSize - total.samples[kind].length;
    if (room > 0) total.samples[kind].push(...part.samples[kind].slice(0, room));
  }
}

/** True when the tally found no drift at all. */
export function isClean(t: DriftTally): boolean {
  return t.missing === 0 && t.extra === 0 && t.different === 0;
}

/** Whether a Redis member is a canonical player id (PostgreSQL can hold it); anything else is an extra. */
export function isPlayerId(member: string): boolean {
  try {
    return parsePlayerId(member) === member;
  } catch (err) {
    if (isDomainError(err)) return false;
    throw err;
  }
}
