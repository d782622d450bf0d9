import { describe, expect, it } from 'vitest';
import { createRateLimiter } from '../../src/service/rate-limiter.js';

/** One call at clock time `at` (ms): take `cost` from `key`, expecting `allowed`. */
type Step = [at: number, key: string, cost: number, allowed: boolean];

/** Replays steps on one limiter with a controlled clock; returns what each take answered. */
function replay(opts: { ratePerSec: number; burst: number; maxKeys?: number }, steps: Step[]) {
  let t = 0;
  const limiter = createRateLimiter({ ...opts, now: () => t });
  return steps.map(([at, key, cost]) => {
    t = at;
    return limiter.take(key, cost);
  });
}

describe('take', () => {
  it.each<[string, { ratePerSec: number; burst: number; maxKeys?: number }, Step[]]>([
    [
      'a new key may spend its whole burst at once, then is refused',
      { ratePerSec: 1, burst: 3 },
      [
        [0, 'a', 1, true],
        [0, 'a', 1, true],
        [0, 'a', 1, true],
        [0, 'a', 1, false],
      ],
    ],
    [
      'tokens come back at the rate, not earlier',
      { ratePerSec: 2, burst: 2 },
      [
        [0, 'a', 1, true],
        [0, 'a', 1, true],
        [0, 'a', 1, false],
        [499, 'a', 1, false],
        [500, 'a', 1, true],
        [500, 'a', 1, false],
        [1000, 'a', 1, true],
      ],
    ],
    [
      'a quiet spell refills no more than the burst',
      { ratePerSec: 10, burst: 2 },
      [
        [0, 'a', 1, true],
        [0, 'a', 1, true],
        [60_000, 'a', 1, true],
        [60_000, 'a', 1, true],
        [60_000, 'a', 1, false],
      ],
    ],
    [
      'keys have independent buckets',
      { ratePerSec: 1, burst: 1 },
      [
        [0, 'a', 1, true],
        [0, 'a', 1, false],
        [0, 'b', 1, true],
        [0, 'b', 1, false],
      ],
    ],
    [
      'a cost takes that many tokens',
      { ratePerSec: 1, burst: 5 },
      [
        [0, 'a', 5, true],
        [0, 'a', 1, false],
        [1000, 'a', 2, false],
        [1000, 'a', 1, true],
        [1000, 'a', 1, false],
      ],
    ],
    [
      'a refused take takes nothing',
      { ratePerSec: 1, burst: 2 },
      [
        [0, 'a', 2, true],
        [500, 'a', 1, false],
        [1000, 'a', 1, true],
      ],
    ],
    [
      'fractional refills add up to whole tokens',
      { ratePerSec: 3, burst: 1 },
      [
        [0, 'a', 1, true],
        [333, 'a', 1, false],
        [334, 'a', 1, true],
      ],
    ],
    [
      'a clock stepping back mints no tokens',
      { ratePerSec: 1, burst: 1 },
      [
        [5000, 'a', 1, true],
        [0, 'a', 1, false],
        [5000, 'a', 1, false],
        [5999, 'a', 1, false],
        [6000, 'a', 1, true],
      ],
    ],
    [
      'a cost of 0 is always allowed and takes nothing',
      { ratePerSec: 1, burst: 1 },
      [
        [0, 'a', 1, true],
        [0, 'a', 0, true],
        [1000, 'a', 1, true],
      ],
    ],
    [
      'beyond maxKeys the least recently used bucket is dropped (and starts full again)',
      { ratePerSec: 1, burst: 1, maxKeys: 2 },
      [
        [0, 'a', 1, true],
        [0, 'b', 1, true],
        [0, 'c', 1, true],
        [0, 'a', 1, true],
      ],
    ],
    [
      'a recently used key survives eviction',
      { ratePerSec: 1, burst: 1, maxKeys: 2 },
      [
        [0, 'a', 1, true],
        [0, 'b', 1, true],
        [0, 'a', 1, false],
        [0, 'c', 1, true],
        [0, 'a', 1, false],
        [0, 'b', 1, true],
      ],
    ],
  ])('%s', (_, opts, steps) => {
    expect(replay(opts, steps)).toEqual(steps.map((s) => s[3]));
  });

  it('holds at most maxKeys buckets however many keys it sees', () => {
    const limiter = createRateLimiter({ ratePerSec: 1, burst: 1, maxKeys: 100, now: () => 0 });
    for (let i = 0; i < 10_000; i++) limiter.take(`k${i}`);
    expect(limiter.size()).toBe(100);
  });
});

describe('retryAfterMs', () => {
  it.each<
    [
      string,
      { ratePerSec: number; burst: number },
      Array<[at: number, op: 'take' | 'wait', cost: number, expected: number | boolean]>,
    ]
  >([
    ['is 0 for a key never seen', { ratePerSec: 1, burst: 1 }, [[0, 'wait', 1, 0]]],
    [
      'is the time until the next token once empty',
      { ratePerSec: 2, burst: 1 },
      [
        [0, 'take', 1, true],
        [0, 'wait', 1, 500],
      ],
    ],
    [
      'shrinks as time passes',
      { ratePerSec: 2, burst: 1 },
      [
        [0, 'take', 1, true],
        [200, 'wait', 1, 300],
        [500, 'wait', 1, 0],
      ],
    ],
    [
      'rounds up, so retrying after it succeeds',
      { ratePerSec: 3, burst: 1 },
      [
        [0, 'take', 1, true],
        [0, 'wait', 1, 334],
        [334, 'take', 1, true],
      ],
    ],
    [
      'accounts for the cost',
      { ratePerSec: 1, burst: 4 },
      [
        [0, 'take', 4, true],
        [0, 'wait', 3, 3000],
        [1000, 'wait', 3, 2000],
      ],
    ],
    [
      'does not take tokens itself',
      { ratePerSec: 1, burst: 1 },
      [
        [0, 'wait', 1, 0],
        [0, 'wait', 1, 0],
        [0, 'take', 1, true],
      ],
    ],
  ])('%s', (_, opts, steps) => {
    let t = 0;
    const limiter = createRateLimiter({ ...opts, now: () => t });
    const got = steps.map(([at, op, cost]) => {
      t = at;
      return op === 'take' ? limiter.take('k', cost) : limiter.retryAfterMs('k', cost);
    });
    expect(got).toEqual(steps.map((s) => s[3]));
  });
});

describe('invalid settings', () => {
  it.each<[string, () => unknown]>([
    ['a rate of 0', () => createRateLimiter({ ratePerSec: 0, burst: 1 })],
    ['a negative rate', () => createRateLimiter({ ratePerSec: -1, burst: 1 })],
    ['an infinite rate', () => createRateLimiter({ ratePerSec: Infinity, burst: 1 })],
    ['a burst below one token', () => createRateLimiter({ ratePerSec: 1, burst: 0.5 })],
    ['a NaN burst', () => createRateLimiter({ ratePerSec: 1, burst: NaN })],
    ['maxKeys of 0', () => createRateLimiter({ ratePerSec: 1, burst: 1, maxKeys: 0 })],
    [
      'a cost above the burst, which could never be granted',
      () => createRateLimiter({ ratePerSec: 1, burst: 2 }).take('k', 3),
    ],
    ['a negative cost', () => createRateLimiter({ ratePerSec: 1, burst: 2 }).take('k', -1)],
    [
      'a cost above the burst asked of retryAfterMs',
      () => createRateLimiter({ ratePerSec: 1, burst: 2 }).retryAfterMs('k', 3),
    ],
  ])('are refused: %s', (_, call) => {
    expect(call).toThrow(RangeError);
  });
});
