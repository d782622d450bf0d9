import { lifecycleStep } from '../domain/season-lifecycle.js';
import type { Season } from '../domain/season.js';
import { partitionsAhead, type PartitionPlan } from '../domain/partitions.js';

/** Where the scheduler finds seasons and moves them to ACTIVE (PostgreSQL). */
export interface SchedulerStore {
  /** Every season not finalized, plus those finalized after `finalizedSince` (for the sweep). */
  listUnfinished(finalizedSince: Date): Promise<Season[]>;
  /** SCHEDULED → ACTIVE only if still SCHEDULED (never reopens a season closed meanwhile); true if it moved. */
  activate(id: number): Promise<boolean>;
  /** Creates the history partitions of the plan that do not exist yet. */
  ensurePartitions(plan: PartitionPlan): Promise<void>;
}

/** Runs `fn` only while holding the cluster-wide scheduler lock; { acquired: false } when another instance has it. */
export type TryLock = <T>(fn: () => Promise<T>) => Promise<{ acquired: true; value: T } | { acquired: false }>;

export interface TickReport {
  /** false: another instance holds the lock and did the work. */
  acquired: boolean;
  activated: number[];
  closed: number[];
  failed: Array<{ seasonId: number; error: unknown }>;
}

// A close cut short after finalizing (before its Redis keys went) is finished by the sweep if the
// scheduler sees it within this long; after that, `seasons close` on the CLI still finishes it.
const SWEEP_HORIZON_MS = 7 * 24 * 3600 * 1000;

/**
 * Moves seasons through their lifecycle by the clock: SCHEDULED → ACTIVE when they start, and
 * the close procedure when they end or were closed early (or a close was interrupted). Every
 * instance may run one; the lock makes one act at a time. Ticks never overlap: the next one is
 * scheduled when the previous finishes.
 */
export function createSeasonScheduler(deps: {
  store: SchedulerStore;
  /** The close procedure (src/service/close-season.ts) with its dependencies bound. */
  close(seasonId: number, reason: string, signal: AbortSignal): Promise<unknown>;
  tryLock: TryLock;
  /** The rank-history pass (service/rank-history.ts takeDueSnapshots), run after the closes. */
  snapshot?(seasons: Season[], at: Date, signal: AbortSignal): Promise<unknown>;
  /** The retention pass (service/archive-history.ts applyRetention), run after the snapshots. */
  retain?(at: Date): Promise<unknown>;
  /** The period rewards pass (service/period-rewards.ts grantEndedPeriods), run after the closes. */
  periodRewards?(seasons: Season[], at: Date): Promise<unknown>;
  /** The repeating seasons pass (service/season-rollover.ts rollOver), run after the closes. */
  rollOver?(seasons: Season[], at: Date): Promise<unknown>;
  intervalMs: number;
  now?(): Date;
  onError?(err: unknown, seasonId?: number): void;
}) {
  const now = deps.now ?? (() => new Date());
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;

  async function work(): Promise<Omit<TickReport, 'acquired'>> {
    const at = now();
    const seasons = await deps.store.listUnfinished(new Date(at.getTime() - SWEEP_HORIZON_MS));
    const report: Omit<TickReport, 'acquired'> = { activated: [], closed: [], failed: [] };
    // Activations first: they are instant, and must not wait behind a close that drains Kafka.
    for (const s of seasons.filter((x) => lifecycleStep(x, at) === 'activate')) {
      if (await deps.store.activate(s.id)) report.activated.push(s.id);
    }
    try {
      await deps.store.ensurePartitions(partitionsAhead(seasons, at));
    } catch (error) {
      // Not fatal: ingest creates a missing partition itself, only later and on its hot path.
      deps.onError?.(error);
    }
    for (const s of seasons) {
      const step = lifecycleStep(s, at);
      if (step !== 'close' && step !== 'sweep') continue;
      if (stopping.signal.aborted) break;
      try {
        await deps.close(
          s.id,
          step === 'sweep'
            ? 'finish the cleanup of a finalized season'
            : s.status === 'CLOSED'
              ? 'finish a close (status CLOSED)'
              : 'season ended',
          stopping.signal,
        );
        if (step === 'close') report.closed.push(s.id);
      } catch (error) {
        // One season failing (Kafka lagging, say) must not hold back the others; it is retried next tick.
        if (!stopping.signal.aborted) deps.onError?.(error, s.id);
        report.failed.push({ seasonId: s.id, error });
      }
    }
    for (const pass of [deps.rollOver, deps.periodRewards]) {
      if (!pass || stopping.signal.aborted) continue;
      try {
        await pass(seasons, at);
      } catch (error) {
        deps.onError?.(error);
      }
    }
    if (deps.snapshot && !stopping.signal.aborted) {
      try {
        await deps.snapshot(seasons, at, stopping.signal);
      } catch (error) {
        deps.onError?.(error);
      }
    }
    if (deps.retain && !stopping.signal.aborted) {
      try {
        await deps.retain(at);
      } catch (error) {
        deps.onError?.(error);
      }
    }
    return report;
  }

  async function tick(): Promise<TickReport> {
    const result = await deps.tryLock(work);
    return result.acquired
      ? { acquired: true, ...result.value }
      : { acquired: false, activated: [], closed: [], failed: [] };
  }

  function schedule(delayMs: number): void {
    timer = setTimeout(() => {
      running = tick()
        .catch((err) => deps.onError?.(err))
        .finally(() => {
          running = undefined;
          if (!stopping.signal.aborted) schedule(deps.intervalMs);
        });
    }, delayMs);
  }

  return {
    /** One pass over every season; what the timer runs, exposed for tests and the CLI. */
    tick,
    /** Starts ticking: the first tick right away, so a restart catches up at once. */
    start(): void {
      schedule(0);
    },
    /** Stops ticking; a close in progress is abandoned at its next wait (the next tick redoes it). */
    async stop(): Promise<void> {
      stopping.abort();
      clearTimeout(timer);
      await running;
    },
  };
}
