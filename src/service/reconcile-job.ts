import type { Season } from '../domain/season.js';
import type { ReconcileReport } from './reconcile-season.js';

export interface ReconcileJobDeps {
  /** Time between runs; runs start on multiples of it (wall clock), so instances meet at the lock. */
  intervalMs: number;
  repair: boolean;
  activeSeasons(): Promise<Season[]>;
  reconcile(season: Season, opts: { repair: boolean; signal: AbortSignal }): Promise<ReconcileReport>;
  /** Runs `fn` unless another instance is running it (pg_try_advisory_lock); acquired false then. */
  exclusive(fn: () => Promise<void>): Promise<{ acquired: boolean }>;
  /** Every report of one run, once it finished (seasons that failed are left out). */
  onRun(reports: ReconcileReport[]): void;
  onError(err: unknown, seasonId?: number): void;
  now(): number;
}

/**
 * Reconciles every ACTIVE season on a schedule, in one instance at a time: the others find the
 * lock taken and skip that turn. A failing season is reported and the run goes on to the next.
 */
export function createReconcileJob(deps: ReconcileJobDeps) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let abort = new AbortController();

  async function runSeasons(signal: AbortSignal): Promise<void> {
    const reports: ReconcileReport[] = [];
    for (const season of await deps.activeSeasons()) {
      if (signal.aborted) return;
      try {
        reports.push(await deps.reconcile(season, { repair: deps.repair, signal }));
      } catch (err) {
        if (!signal.aborted) deps.onError(err, season.id);
      }
    }
    deps.onRun(reports);
  }

  /** One run now, if this instance gets the lock; resolves to whether it ran. */
  async function runOnce(): Promise<boolean> {
    const signal = abort.signal;
    const { acquired } = await deps.exclusive(() => runSeasons(signal));
    return acquired;
  }

  function schedule(): void {
    const wait = deps.intervalMs - (deps.now() % deps.intervalMs);
    timer = setTimeout(() => {
      running = runOnce()
        .catch((err: unknown) => deps.onError(err))
        .finally(() => {
          running = undefined;
          if (timer) schedule();
        });
    }, wait);
    timer.unref();
  }

  return {
    runOnce,
    /** Starts the schedule (no-op when the interval is 0). */
    start(): void {
      if (deps.intervalMs <= 0 || timer) return;
      abort = new AbortController();
      schedule();
    },
    /** Stops the schedule; a run in progress stops at its next page. */
    async stop(): Promise<void> {
      clearTimeout(timer);
      timer = undefined;
      abort.abort();
      await running;
    },
  };
}
