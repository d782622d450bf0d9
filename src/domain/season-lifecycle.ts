import type { Season } from './season.js';

/**
 * What the season scheduler does with a season at `now`:
 * - activate: SCHEDULED and its start has come (and its end has not);
 * - close:    not finalized, and CLOSED (early, or a close interrupted) or past its end;
 * - sweep:    finalized: re-run the (idempotent) close only to finish a cleanup a crash cut short;
 * - none:     nothing to do yet.
 */
export type LifecycleStep = 'activate' | 'close' | 'sweep' | 'none';

/** The scheduler's next step for a season (see LifecycleStep). */
export function lifecycleStep(
  season: Pick<Season, 'status' | 'startsAt' | 'endsAt' | 'finalizedAt'>,
  now: Date,
): LifecycleStep {
  if (season.finalizedAt) return 'sweep';
  // A season whose end passed while nobody ran the scheduler closes directly, never via ACTIVE.
  if (season.status === 'CLOSED' || now.getTime() >= season.endsAt.getTime()) return 'close';
  if (season.status === 'SCHEDULED' && now.getTime() >= season.startsAt.getTime()) return 'activate';
  return 'none';
}
