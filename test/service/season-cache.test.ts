import { describe, expect, it } from 'vitest';
import type { Season } from '../../src/domain/season.js';
import { createSeasonCache } from '../../src/service/season-cache.js';

describe('season cache', () => {
  it('loads a season once for many callers at once, then serves it from memory', async () => {
    let loads = 0;
    let release!: () => void;
    const cache = createSeasonCache(async (id) => {
      loads++;
      await new Promise<void>((r) => (release = r));
      return { id } as Season;
    });
    const many = Array.from({ length: 200 }, () => cache.get(7));
    release();
    expect((await Promise.all(many)).every((s) => s?.id === 7)).toBe(true);
    expect(loads).toBe(1);
    expect(cache.peek(7)?.id).toBe(7);
    await cache.get(7);
    expect(loads).toBe(1);
  });

  it('does not cache a miss, and loads again after invalidate', async () => {
    let exists = false;
    let loads = 0;
    const cache = createSeasonCache(async (id) => {
      loads++;
      return exists ? ({ id } as Season) : undefined;
    });
    expect(await cache.get(1)).toBeUndefined();
    exists = true;
    expect((await cache.get(1))?.id).toBe(1);
    cache.invalidate(1);
    await cache.get(1);
    expect(loads).toBe(3);
  });
});
