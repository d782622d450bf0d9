import { describe, expect, it } from 'vitest';
import { createBlockedPlayersCache } from '../../src/service/blocked-players.js';

function loader(lists: Record<number, string[]>) {
  const calls: number[] = [];
  let fail = false;
  return {
    calls,
    failNext: () => {
      fail = true;
    },
    load: async (seasonId: number) => {
      calls.push(seasonId);
      if (fail) {
        fail = false;
        throw new Error('postgres down');
      }
      return new Set(lists[seasonId] ?? []);
    },
  };
}

describe('the blocked players cache', () => {
  it('loads a season once per TTL, whatever the number of lookups', async () => {
    let t = 0;
    const l = loader({ 1: ['7'] });
    const cache = createBlockedPlayersCache(l.load, { ttlMs: 1000, now: () => t });
    const answers = await Promise.all(['7', '8', '7', '9'].map((p) => cache.isBlocked(1, p)));
    expect(answers).toEqual([true, false, true, false]);
    expect(await cache.blockedAmong(1, ['8', '7'])).toEqual(['7']);
    expect(l.calls).toEqual([1]);
    t = 1000;
    await cache.isBlocked(1, '7');
    expect(l.calls).toEqual([1, 1]);
  });

  it('forgets a season on invalidate, and does not cache a failed load', async () => {
    const l = loader({ 2: [] });
    const cache = createBlockedPlayersCache(l.load, { ttlMs: 60_000 });
    await cache.isBlocked(2, '1');
    cache.invalidate(2);
    l.failNext();
    await expect(cache.isBlocked(2, '1')).rejects.toThrow('postgres down');
    expect(await cache.isBlocked(2, '1')).toBe(false);
    expect(l.calls).toEqual([2, 2, 2]);
  });
});
