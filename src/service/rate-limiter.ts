/** Settings of a token-bucket limiter. */
export interface RateLimiterOptions {
  /** Tokens added to a bucket per second: the sustained rate. */
  ratePerSec: number;
  /** Bucket capacity: how many requests may arrive at once after a quiet spell. */
  burst: number;
  /** Milliseconds since the epoch; injected so tests control time. */
  now?: () => number;
  /** Buckets kept; beyond that the least recently used one is dropped. */
  maxKeys?: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * A token bucket per key (API key id, client address...), in memory, without timers: buckets
 * are refilled lazily when touched. Per process: N replicas allow N times the rate.
 */
export function createRateLimiter(opts: RateLimiterOptions) {
  const { ratePerSec, burst, now = Date.now, maxKeys = 100_000 } = opts;
  if (!(ratePerSec > 0) || !Number.isFinite(ratePerSec)) throw new RangeError('ratePerSec must be a positive number');
  if (!(burst >= 1) || !Number.isFinite(burst)) throw new RangeError('burst must be at least 1');
  if (!Number.isInteger(maxKeys) || maxKeys < 1) throw new RangeError('maxKeys must be a positive integer');
  // Float sums of fractional refills may land a hair under a whole token that retryAfterMs
  // promised; tolerate that so "retry after N ms" is always honoured.
  const EPSILON = 1e-9;
  // Map iteration order is insertion order; take() re-inserts, so the first key is the least
  // recently used. Evicting it can only hand that key a fresh bucket early: a bounded leniency
  // under a flood of distinct keys, instead of unbounded memory.
  const buckets = new Map<string, Bucket>();

  function checkCost(cost: number): void {
    if (!(cost >= 0) || cost > burst) throw new RangeError(`cost must be 0..${burst} (the burst), got ${cost}`);
  }

  /** The bucket as it is at time t, not stored. */
  function current(key: string, t: number): Bucket {
    const b = buckets.get(key);
    if (!b) return { tokens: burst, at: t };
    // A clock stepping back must not mint tokens: time only moves forward for a bucket.
    const at = Math.max(b.at, t);
    return { tokens: Math.min(burst, b.tokens + ((at - b.at) * ratePerSec) / 1000), at };
  }

  return {
    /** Takes `cost` tokens from `key`'s bucket if it holds them; a refused take takes nothing. */
    take(key: string, cost = 1): boolean {
      checkCost(cost);
      const b = current(key, now());
      const allowed = b.tokens >= cost - EPSILON;
      if (allowed) b.tokens -= cost;
      buckets.delete(key);
      buckets.set(key, b);
      while (buckets.size > maxKeys) buckets.delete(buckets.keys().next().value!);
      return allowed;
    },

    /** Milliseconds until `take(key, cost)` would succeed (0: now), e.g. for a Retry-After hint. */
    retryAfterMs(key: string, cost = 1): number {
      checkCost(cost);
      const missing = cost - current(key, now()).tokens;
      return missing <= EPSILON ? 0 : Math.ceil((missing * 1000) / ratePerSec);
    },

    /** Buckets held in memory. */
    size(): number {
      return buckets.size;
    },
  };
}
