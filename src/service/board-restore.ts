import type { Season } from '../domain/season.js';

/**
 * Whether Redis holds the boards: a marker key, absent from an empty Redis (restarted without
 * persistence, flushed, replaced). Implemented in redis/boards-marker.ts.
 */
export interface BoardsMarker {
  /** Takes the restore (the marker is absent): sets it to "restoring" for `leaseMs`; false when present. */
  claim(leaseMs: number): Promise<boolean>;
  /** Extends a claim's lease (a long restore). */
  renew(leaseMs: number): Promise<void>;
  /** Marks the boards complete, only if the claim is still there: false when Redis lost it meanwhile. */
  complete(): Promise<boolean>;
  /** Drops a claim after a failure, so the next check tries again. */
  release(): Promise<void>;
}

export interface BoardRestoreDeps {
  marker: BoardsMarker;
  /** Every check's interval; 0: never. */
  intervalMs: number;
  /** How long a claim holds without renewal (a process dying mid-restore lets another take over). */
  leaseMs: number;
  activeSeasons(): Promise<Season[]>;
  /** service/rebuild-season.ts: refills a season's live boards from PostgreSQL without emptying them. */
  rebuild(seasonId: number): Promise<{ members: number }>;
  onRestored(report: { seasons: number; members: number; ms: number }): void;
  onError(err: unknown, seasonId?: number): void;
  now(): number;
}

/**
 * Notices that Redis lost its boards and rebuilds them from PostgreSQL, by itself
 * (docs/reliability.md#fault-matrix, item 14). Each check is one SET NX of the marker: absent,
 * this instance claims the restore, rebuilds every ACTIVE season (ingest meanwhile writes both
 * the board and its copy, so nothing committed is missed) and marks Redis complete. If Redis is
 * emptied again during the restore, the claim is gone with it and the next check starts over;
 * a failed season releases the claim for the same reason. One instance restores at a time.
 */
export function createBoardRestore(deps: BoardRestoreDeps) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;

  /** One check now; resolves to whether this instance restored the boards. */
  async function runOnce(): Promise<boolean> {
    if (!(await deps.marker.claim(deps.leaseMs))) return false;
    const started = deps.now();
    let members = 0;
    let seasons = 0;
    try {
      for (const season of await deps.activeSeasons()) {
        members += (await deps.rebuild(season.id)).members;
        seasons++;
        await deps.marker.renew(deps.leaseMs);
      }
    } catch (err) {
      await deps.marker.release().catch(() => {});
      throw err;
    }
    if (!(await deps.marker.complete())) return false;
    deps.onRestored({ seasons, members, ms: deps.now() - started });
    return true;
  }

  function schedule(): void {
    timer = setTimeout(() => {
      running = runOnce()
        .catch((err: unknown) => deps.onError(err))
        .finally(() => {
          running = undefined;
          if (timer) schedule();
        });
    }, deps.intervalMs);
    timer.unref();
  }

  return {
    runOnce,
    /** Starts the checks (no-op when the interval is 0). */
    start(): void {
      if (deps.intervalMs > 0 && !timer) schedule();
    },
    async stop(): Promise<void> {
      clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
