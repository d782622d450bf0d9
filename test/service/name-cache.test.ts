import { describe, expect, it } from 'vitest';
import { createNameCache } from '../../src/service/name-cache.js';

function setup(maxEntries?: number) {
  const stored = new Map([
    ['1', 'Ann'],
    ['2', 'Bob'],
  ]);
  let release: (() => void) | undefined;
  let slow = false;
  const cache = createNameCache({
    maxEntries,
    load: async (ids) => {
      const answer = new Map(ids.map((id) => [id, stored.get(id) ?? null]));
      if (slow)
        await new Promise<void>((r) => {
          release = r;
        });
      return answer;
    },
  });
  return {
    cache,
    stored,
    slowDown: () => {
      slow = true;
    },
    release: () => release?.(),
  };
}

describe('the name cache', () => {
  it('reads each name from PostgreSQL once', async () => {
    const { cache } = setup();
    expect(await cache.names(['1', '2', '3'])).toEqual(
      new Map([
        ['1', 'Ann'],
        ['2', 'Bob'],
        ['3', null],
      ]),
    );
    expect(await cache.names(['2', '1'])).toEqual(
      new Map([
        ['2', 'Bob'],
        ['1', 'Ann'],
      ]),
    );
    expect(cache.stats().loads).toBe(1);
  });

  it('drops a changed name and raises the epoch only when it may have been shown', async () => {
    const { cache, stored } = setup();
    await cache.names(['1']);
    cache.invalidate(['99']); // never read here: nothing cached depends on it
    expect(cache.epoch()).toBe(0);
    stored.set('1', 'Anna');
    cache.invalidate(['1']);
    expect(cache.epoch()).toBe(1);
    expect((await cache.names(['1'])).get('1')).toBe('Anna');
  });

  it('does not keep a name read while it changed', async () => {
    const { cache, stored, slowDown, release } = setup();
    slowDown();
    const reading = cache.names(['2']); // reads "Bob"...
    stored.set('2', 'Bobby');
    cache.invalidate(['2']); // ...while it changes
    release();
    expect((await reading).get('2')).toBe('Bob');
    expect(cache.epoch()).toBe(1); // answers built on it are stale
    expect(cache.stats().size).toBe(0); // and it was not kept
  });

  it('holds at most maxEntries names', async () => {
    const { cache } = setup(2);
    await cache.names(['1', '2', '3', '4']);
    expect(cache.stats().size).toBe(2);
  });
});
