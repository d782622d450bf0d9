// Which partitions of the history tables must exist ahead of time (docs/design.md#storage).
// match_results is partitioned by season and UTC day, match_claims by UTC day; the writers
// create a missing partition themselves, but one created ahead keeps that DDL off the hot path.
import type { Season } from './season.js';
import { dayPeriod } from './windows.js';

const DAY_MS = 86_400_000;

/** Days ahead of today whose partitions the scheduler creates (today's included). */
const PARTITION_DAYS_AHEAD = 2;

/** The partitions to have by `at`: each (season, day) and claims day from today on. */
export interface PartitionPlan {
  results: Array<{ seasonId: number; day: string }>;
  claims: string[];
}

/**
 * For every season not yet finalized, the days from today through `daysAhead` that lie inside
 * the season; for claims, the same days plus one (a claim also writes the day after its match's).
 */
export function partitionsAhead(
  seasons: ReadonlyArray<Pick<Season, 'id' | 'startsAt' | 'endsAt' | 'finalizedAt'>>,
  at: Date,
  daysAhead = PARTITION_DAYS_AHEAD,
): PartitionPlan {
  const today = Math.floor(at.getTime() / DAY_MS) * DAY_MS;
  const days = Array.from({ length: daysAhead + 1 }, (_, i) => today + i * DAY_MS);
  const results: PartitionPlan['results'] = [];
  for (const s of seasons) {
    if (s.finalizedAt) continue;
    for (const d of days) {
      // The day [d, d + 1 day) overlaps the season [startsAt, endsAt).
      if (d < s.endsAt.getTime() && d + DAY_MS > s.startsAt.getTime())
        results.push({ seasonId: s.id, day: dayPeriod(new Date(d)) });
    }
  }
  const claims = [...days, today + (daysAhead + 1) * DAY_MS].map((d) => dayPeriod(new Date(d)));
  return { results, claims };
}
