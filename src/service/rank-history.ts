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
  assignSlots(season: Season): Promise<number>;
}

/** How often a season's newcomers get their rank slots ahead of its next snapshot. */
export const SLOT_PASS_MS = 3_600_000;

/**
 * Takes every snapshot due at `at`, one season after another; returns those taken. With
 * `slottedAt` (season id → the last slot pass, kept by the caller across passes), a season with no
 * snapshot due whose last pass is SLOT_PASS_MS old gets one: a snapshot then slots at most an
 * hour's newcomers, never a whole board's.
 */
export async function takeDueSnapshots(
  store: SnapshotStore,
  seasons: readonly Season[],
  at: Date,
  signal?: AbortSignal,
  slottedAt?: Map<number, number>,
): Promise<SnapshotReport[]> {
  const latest = await store.latest(seasons.map((s) => s.id));
  const taken: SnapshotReport[] = [];
  for (const season of seasons) {
    if (signal?.aborted) break;
    const boundary = snapshotDue(season, at, latest.get(season.id));
    if (boundary) {
      const report = await store.take(season, boundary);
      if (report.taken) taken.push(report);
      slottedAt?.set(season.id, at.getTime());
    } else if (
      slottedAt &&
      season.status === 'ACTIVE' &&
      at.getTime() - (slottedAt.get(season.id) ?? -Infinity) >= SLOT_PASS_MS
    ) {
      await store.assignSlots(season);
      slottedAt.set(season.id, at.getTime());
    }
  }
  return taken;
}
