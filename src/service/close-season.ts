import { setTimeout as delay } from 'node:timers/promises';
import { seasonNotFound, unavailable } from '../domain/errors.js';
import type { Season } from '../domain/season.js';

/** Who closes a season and why (written to admin_audit). */
export interface CloseRequest {
  actor: string;
  reason: string;
}

/** What finalizing wrote to season_final_standings. */
export interface FinalizeReport {
  boards: number;
  rows: number;
  /** Rewards granted from the final standings (docs/design.md#rewards). */
  rewards?: number;
  /** Players a league season's close promoted or relegated (docs/design.md#leagues). */
  leagueMoves?: number;
}

/** The season's lifecycle state in PostgreSQL. */
export interface CloseStore {
  get(id: number): Promise<Season | undefined>;
  /** Sets status CLOSED (terminal) and audits who asked; a season already CLOSED is left as it is. */
  markClosed(id: number, by: CloseRequest): Promise<void>;
  /**
   * In one transaction: every player's final place on every board, finalized_at and an audit
   * row. Undefined when the season was already finalized (by a concurrent close).
   */
  finalize(season: Season, by: CloseRequest): Promise<FinalizeReport | undefined>;
}

/** How far the ingest consumer group got through the results topic (Kafka). */
export interface IngestProgress {
  /** Per partition: the log end (offset of the next message produced) and the oldest offset kept. */
  endOffsets(): Promise<Array<{ partition: number; end: bigint; start: bigint }>>;
  /** Per partition: the offset the ingest group committed (the next one it will apply); -1 or absent: none. */
  committedOffsets(): Promise<Map<number, bigint>>;
}

/** The season's keys in Redis. */
export interface SeasonKeys {
  /** Whether the SEASON board or the versions still exist: removed last, so true means a cleanup is unfinished. */
  remaining(seasonId: number): Promise<boolean>;
  /** UNLINKs every key of the season (a sharded season's shards first), the SEASON board and versions last. */
  remove(seasonId: number): Promise<number>;
}

type CloseStep = 'waitInFlight' | 'drain' | 'finalize' | 'publishRewards' | 'waitReaders' | 'removeKeys';

/** A partition the ingest group has not applied up to the close's target yet. */
export interface PartitionBehind {
  partition: number;
  /** The offset the group committed (-1: none). */
  committed: bigint;
  end: bigint;
}

/** What a close is doing now: each step as it begins, and the drain's partitions behind at each poll. */
export type CloseProgress =
  | { step: 'waitInFlight' | 'waitReaders'; waitMs: number }
  | { step: 'drain'; behind: PartitionBehind[] }
  | { step: 'finalize' | 'publishRewards' | 'removeKeys' };

export interface CloseDeps {
  store: CloseStore;
  ingest: IngestProgress;
  keys: SeasonKeys;
  /**
   * Sends the season's granted rewards Kafka has not acknowledged yet (the outbox); returns how
   * many. Absent: rewards wait in PostgreSQL for a process that has it.
   */
  rewards?: { publish(season: Season): Promise<number> };
  /** Drops this process's cached copy of the season; other processes see the change within cacheTtlMs. */
  invalidate(seasonId: number): void;
  /** TTL of the season cache of every API and ingest process. */
  cacheTtlMs: number;
  /** How long after validation a submission may still be acknowledged by Kafka (the API's send timeout). */
  graceMs: number;
  /** Longest wait for the ingest consumer group to reach the offsets of the close. */
  drainTimeoutMs: number;
  pollMs?: number;
  now?(): number;
  sleep?(ms: number, signal?: AbortSignal): Promise<void>;
  onStep?(seasonId: number, step: CloseStep, ms: number): void;
  /** Told what the close waits for as it goes (the CLI prints it: a close takes seconds to minutes). */
  onProgress?(seasonId: number, progress: CloseProgress): void;
}

export interface CloseReport {
  seasonId: number;
  /** false: the season was already final (a re-run), so at most an unfinished key cleanup was done. */
  finalized: boolean;
  boards: number;
  rows: number;
  /** Rewards granted by this close, and rewards sent to Kafka by this run (a re-run sends what a crash left). */
  rewards: number;
  rewardsPublished: number;
  keysRemoved: number;
  durationMs: number;
  /** Milliseconds spent in each step. */
  steps: Partial<Record<CloseStep, number>>;
}

const defaultSleep = (ms: number, signal?: AbortSignal) => delay(ms, undefined, { signal });

/**
 * Closes a season for good: (a) status CLOSED, so the API stops accepting results; (b) waits
 * for submissions already past validation, then for the ingest group to apply everything in
 * Kafka up to now; (c) writes the final standings in one PostgreSQL transaction; (d) once
 * every process reads the season as final (its reads come from PostgreSQL), removes its Redis
 * keys. Idempotent: a finalized season is a no-op, and a close cut short anywhere is redone by
 * running it again (the scheduler does, for any season CLOSED but not finalized).
 */
export async function closeSeason(
  deps: CloseDeps,
  seasonId: number,
  by: CloseRequest,
  signal?: AbortSignal,
): Promise<CloseReport> {
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? defaultSleep;
  const started = now();
  const season = await deps.store.get(seasonId);
  if (!season) throw seasonNotFound(seasonId);
  if (season.finalizedAt) return sweep(deps, season, started, signal);

  const steps: CloseReport['steps'] = {};
  let mark = now();
  const lap = (step: CloseStep) => {
    steps[step] = now() - mark;
    mark = now();
    deps.onStep?.(seasonId, step, steps[step]);
  };
  const progress = (p: CloseProgress) => deps.onProgress?.(seasonId, p);
  await deps.store.markClosed(seasonId, by);
  deps.invalidate(seasonId);
  // An API process may accept results until its cached copy of the season expires, and a result
  // it validated may then wait up to graceMs for Kafka's ack: after both, nothing new can arrive.
  progress({ step: 'waitInFlight', waitMs: deps.cacheTtlMs + deps.graceMs });
  await sleep(deps.cacheTtlMs + deps.graceMs, signal);
  lap('waitInFlight');
  await waitForIngest(deps.ingest, {
    timeoutMs: deps.drainTimeoutMs,
    pollMs: deps.pollMs ?? 200,
    now,
    sleep,
    signal,
    onBehind: (behind) => progress({ step: 'drain', behind }),
  });
  lap('drain');
  progress({ step: 'finalize' });
  const written = await deps.store.finalize(season, by);
  lap('finalize');
  deps.invalidate(seasonId);
  progress({ step: 'publishRewards' });
  const rewardsPublished = (await deps.rewards?.publish(season)) ?? 0;
  lap('publishRewards');
  // Readers switch to PostgreSQL when their cached season shows finalized_at: until every cache
  // expired, some still read Redis, so the keys must outlive them.
  progress({ step: 'waitReaders', waitMs: deps.cacheTtlMs });
  await sleep(deps.cacheTtlMs, signal);
  lap('waitReaders');
  progress({ step: 'removeKeys' });
  const keysRemoved = await deps.keys.remove(seasonId);
  lap('removeKeys');
  return {
    seasonId,
    finalized: written !== undefined,
    boards: written?.boards ?? 0,
    rows: written?.rows ?? 0,
    rewards: written?.rewards ?? 0,
    rewardsPublished,
    keysRemoved,
    durationMs: now() - started,
    steps,
  };
}

/** A finalized season: only finishes what a crash interrupted, the rewards' publication and the key cleanup. */
async function sweep(deps: CloseDeps, season: Season, started: number, signal?: AbortSignal): Promise<CloseReport> {
  const now = deps.now ?? Date.now;
  const report: CloseReport = {
    seasonId: season.id,
    finalized: false,
    boards: 0,
    rows: 0,
    rewards: 0,
    rewardsPublished: (await deps.rewards?.publish(season)) ?? 0,
    keysRemoved: 0,
    durationMs: 0,
    steps: {},
  };
  if (await deps.keys.remaining(season.id)) {
    const readersSwitchAt = season.finalizedAt!.getTime() + deps.cacheTtlMs;
    await (deps.sleep ?? defaultSleep)(Math.max(0, readersSwitchAt - now()), signal);
    report.keysRemoved = await deps.keys.remove(season.id);
  }
  report.durationMs = now() - started;
  return report;
}

/**
 * Waits until the ingest consumer group has committed, on every partition, the log end offset
 * it had when this was called: every result in Kafka at that moment is then in PostgreSQL.
 * Throws UNAVAILABLE (retryable) after `timeoutMs`, naming the partitions still behind.
 */
export async function waitForIngest(
  progress: IngestProgress,
  opts: {
    timeoutMs: number;
    pollMs: number;
    now(): number;
    sleep(ms: number, signal?: AbortSignal): Promise<void>;
    signal?: AbortSignal | undefined;
    /** The partitions still behind, at each poll (first with all of them; last with none). */
    onBehind?(behind: PartitionBehind[]): void;
  },
): Promise<void> {
  // A partition whose kept log is empty (never written, or all expired) has nothing to apply.
  const targets = (await progress.endOffsets()).filter((p) => p.end > p.start);
  const deadline = opts.now() + opts.timeoutMs;
  for (;;) {
    const committed = await progress.committedOffsets();
    const behind = targets
      .map((p) => ({ partition: p.partition, committed: committed.get(p.partition) ?? -1n, end: p.end }))
      .filter((p) => p.committed < p.end);
    opts.onBehind?.(behind);
    if (behind.length === 0) return;
    if (opts.now() >= deadline) {
      const list = behind.map((p) => `${p.partition} (at ${p.committed} of ${p.end})`).join(', ');
      throw unavailable(
        `ingest did not apply the results produced before the close within ${opts.timeoutMs} ms; partitions behind: ${list}. ` +
          'The season stays CLOSED and closing it again (or the scheduler) finishes it.',
      );
    }
    await opts.sleep(opts.pollMs, opts.signal);
  }
}
