/** What the ingest consumer's readiness is judged on. */
export interface IngestHealthState {
  /** In the consumer group (joined at least once). */
  joined: boolean;
  /** Crashed with an error kafkajs does not restart from. */
  crashed: boolean;
  lastFetchAt: number;
  /** When the step being retried first failed; 0 when nothing is being retried. */
  retryingSince: number;
}

/** How long without a fetch, or retrying one step, before the consumer is no longer ready. */
const STALL_MS = 30_000;

/** Ready when in the group, fetching recently, and not stuck retrying for long. */
export function readinessOf(s: IngestHealthState, now: number): { ok: boolean; reason?: string } {
  if (s.crashed) return { ok: false, reason: 'consumer crashed' };
  if (!s.joined) return { ok: false, reason: 'not in the consumer group yet' };
  if (now - s.lastFetchAt > STALL_MS) return { ok: false, reason: 'no fetch for 30 s' };
  if (s.retryingSince && now - s.retryingSince > STALL_MS) return { ok: false, reason: 'retrying for 30 s' };
  return { ok: true };
}

/** The ingest consumer's health, fed by its events and its retries; `now` is injected in tests. */
export function createIngestHealth(now: () => number = Date.now) {
  const state: IngestHealthState = { joined: false, crashed: false, lastFetchAt: 0, retryingSince: 0 };
  return {
    joined(): void {
      state.joined = true;
    },
    fetched(): void {
      state.lastFetchAt = now();
    },
    crashed(): void {
      state.crashed = true;
    },
    /** A step failed and is retried: the first failure starts the clock. */
    failed(): void {
      state.retryingSince ||= now();
    },
    succeeded(): void {
      state.retryingSince = 0;
    },
    readiness: () => readinessOf(state, now()),
  };
}
