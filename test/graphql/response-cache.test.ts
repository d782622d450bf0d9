import { describe, expect, it } from 'vitest';
import type { Board } from '../../src/domain/board.js';
import type { Season } from '../../src/domain/season.js';
import { createResponseCache } from '../../src/graphql/response-cache.js';
import { createBoardVersions, type BoardEvent } from '../../src/service/board-events.js';

const season = { id: 7, endsAt: new Date('2030-01-01T00:00:00Z') } as Season;
const board: Board = { season, window: 'SEASON', period: '' };
const day: Board = { season, window: 'DAY', period: '2026-11-30' };

function setup(maxBytes = 10_000) {
  let t = 1_000_000;
  let names = 0;
  const versions = createBoardVersions();
  const cache = createResponseCache({ versions, namesEpoch: () => names, maxBytes, maxAgeMs: 5_000, now: () => t });
  const event = (b: Board, version: number, change: { rank: number; old: string | null }): BoardEvent => ({
    seasonId: 7,
    window: b.window,
    period: b.period,
    version,
    kind: 'raise',
    changes: [{ playerId: 'p', score: '1', ...change }],
  });
  return {
    cache,
    versions,
    event,
    tick: (ms: number) => {
      t += ms;
    },
    renameSomeone: () => {
      names++;
    },
  };
}

/**
 * Stores `body` under `key` as read from `b` at `version` (top: the top snapshot; all: a live read,
 * answered twice: a whole-board answer is admitted from its key's second answer).
 */
function store(
  cache: ReturnType<typeof setup>['cache'],
  key: string,
  b: Board,
  version: number,
  depends: 'top' | 'all',
  body = 'x',
  names = false,
) {
  const answer = () => {
    const reads = cache.reads();
    reads.saw(b, depends, version);
    reads.usesNames = names;
    return cache.set(key, Buffer.from(body), reads, 1_000_000);
  };
  if (depends === 'all') answer();
  return answer();
}

describe('the response cache', () => {
  it('keeps an answer until this process hears of a change it depends on', () => {
    const { cache, versions, event } = setup();
    store(cache, 'top', board, 3, 'top');
    store(cache, 'entry', board, 3, 'all');
    // A rise far below the top: the top and size are unchanged, a player's rank may not be.
    versions.note(event(board, 4, { rank: 5_000, old: '0' }));
    expect(cache.get('top')).toBeDefined();
    expect(cache.get('entry')).toBeUndefined();
    // A new member: the size changed.
    versions.note(event(board, 5, { rank: 5_001, old: null }));
    expect(cache.get('top')).toBeUndefined();
  });

  it('counts a read made after an event as current even before that event arrives', () => {
    const { cache, versions, event } = setup();
    store(cache, 'entry', board, 9, 'all'); // Redis was already at version 9 when read
    versions.note(event(board, 8, { rank: 1, old: null }));
    versions.note(event(board, 9, { rank: 1, old: null }));
    expect(cache.get('entry')).toBeDefined();
    versions.note(event(board, 10, { rank: 1, old: null }));
    expect(cache.get('entry')).toBeUndefined();
  });

  it('forgets everything when events may have been lost, or a board lost its history', () => {
    const { cache, versions, event } = setup();
    store(cache, 'a', board, 3, 'top');
    versions.forgetAll();
    expect(cache.get('a')).toBeUndefined();
    versions.note(event(board, 3, { rank: 1, old: null }));
    store(cache, 'b', board, 3, 'top');
    versions.note(event(board, 1, { rank: 1, old: null })); // the version went down: Redis was flushed
    expect(cache.get('b')).toBeUndefined();
  });

  it('expires answers after maxAgeMs and DAY answers when their day ends', () => {
    const { cache, tick } = setup();
    store(cache, 'season', board, 1, 'top');
    expect(store(cache, 'day', day, 1, 'top')!.validUntil).toBeLessThanOrEqual(
      new Date('2026-12-01T00:00:00Z').getTime(),
    );
    tick(4_999);
    expect(cache.get('season')).toBeDefined();
    tick(1);
    expect(cache.get('season')).toBeUndefined();
  });

  it('drops answers that showed names once a shown name changed', () => {
    const { cache, renameSomeone } = setup();
    store(cache, 'names', board, 1, 'top', 'x', true);
    store(cache, 'plain', board, 1, 'top', 'x', false);
    renameSomeone();
    expect(cache.get('names')).toBeUndefined();
    expect(cache.get('plain')).toBeDefined();
  });

  it('stays within its byte budget, least recently used first', () => {
    const { cache } = setup(1_000);
    const body = 'y'.repeat(290);
    for (const k of ['k1', 'k2', 'k3']) store(cache, k, board, 1, 'top', body);
    expect(cache.get('k1')).toBeDefined(); // k1 is now the most recent
    store(cache, 'k4', board, 1, 'top', body);
    expect(cache.stats().bytes).toBeLessThanOrEqual(1_000);
    expect(cache.get('k2')).toBeUndefined();
    expect([cache.get('k1'), cache.get('k3'), cache.get('k4')].every(Boolean)).toBe(true);
    expect(cache.stats().evictions).toBe(1);
  });

  it("stores a whole-board answer from its key's second answer, a top at once", () => {
    const { cache } = setup();
    const answer = (key: string, depends: 'top' | 'all') => {
      const reads = cache.reads();
      reads.saw(board, depends, 1);
      return cache.set(key, Buffer.from(`{"${key}":1}`), reads, 1_000_000);
    };
    const first = answer('entry p1', 'all');
    expect(first?.etag).toMatch(/^".+"$/); // the answer still carries its validator
    expect(cache.get('entry p1')).toBeUndefined();
    expect(answer('entry p1', 'all')?.etag).toBe(first!.etag);
    expect(cache.get('entry p1')).toBeDefined();
    expect(answer('entry p2', 'all')).toBeDefined();
    expect(cache.get('entry p2')).toBeUndefined(); // another key is new again
    answer('top', 'top');
    expect(cache.get('top')).toBeDefined();
    expect(cache.stats()).toMatchObject({ entries: 2, unadmitted: 2 });
  });

  it('does not store what read PostgreSQL or nothing at all', () => {
    const { cache } = setup();
    const none = cache.reads();
    expect(cache.set('none', Buffer.from('x'), none, 1_000_000)).toBeUndefined();
    const pg = cache.reads();
    pg.saw(board, 'top', 1);
    pg.uncacheable();
    expect(cache.set('pg', Buffer.from('x'), pg, 1_000_000)).toBeUndefined();
  });
});
