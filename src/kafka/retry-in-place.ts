/** What a step retried in place needs of kafkajs's eachBatch payload. */
export interface RetryScope {
  isRunning(): boolean;
  isStale(): boolean;
  heartbeat(): Promise<void>;
}

/** The wait before retry `attempt` (0 first): doubling from 100 ms, at most 5 s. */
export const backoffMs = (attempt: number): number => Math.min(100 * 2 ** attempt, 5_000);

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Runs `step` until it succeeds; false when the consumer stops or loses the partition first.
 * Infrastructure failures are retried here, in place, and never reach the DLQ.
 */
export async function retryInPlace(
  step: () => Promise<unknown>,
  scope: RetryScope,
  hooks: { failed(err: unknown, attempt: number): void; succeeded(): void; sleep?(ms: number): Promise<void> },
): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    if (!scope.isRunning() || scope.isStale()) return false;
    try {
      await step();
      hooks.succeeded();
      return true;
    } catch (err) {
      hooks.failed(err, attempt);
      await (hooks.sleep ?? sleep)(backoffMs(attempt));
      // Keeps the group membership through a long outage (kafkajs #375); throws on rebalance,
      // which hands the partition over without resolving anything.
      await scope.heartbeat();
    }
  }
}
