// The scheduler's rank-history pass (docs/design.md#rank-history): each ACTIVE season's SEASON
// board snapshotted once per UTC midnight, at the first tick after it.
import { snapshotDue } from '../domain/rank-history.js';
import type { Season } from '../domain/season.js';

/** What one snapshot took. */
export interface SnapshotReport {
  seasonId: number;
  boundary: Date;
  /** False: a snapshot of this boundary existed already. */
  taken: boolean;
  players: number;
  newSlots: number;
  chunks: number;
}

/** postgres/rank-snapshots.ts. */
export interface SnapshotStore {
  latest(seasonIds: readonly number[]): Promise<Map<number, Date>>;
  take(season: Season, boundary: Date): Promise<SnapshotReport>;
}

/** Takes every snapshot due at `at`, one season after another; returns those taken. */
export async function takeDueSnapshots(
  store: SnapshotStore,
  seasons: readonly Season[],
  at: Date,
  signal?: AbortSignal,
): Promise<SnapshotReport[]> {
  const latest = await store.latest(seasons.map((s) => s.id));
  const taken: SnapshotReport[] = [];
  for (const season of seasons) {
    const boundary = snapshotDue(season, at, latest.get(season.id));
    if (!boundary || signal?.aborted) continue;
    const report = await store.take(season, boundary);
    if (report.taken) taken.push(report);
  }
  return taken;
}
