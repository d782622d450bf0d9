import { describe, expect, it } from 'vitest';
import type { Board } from '../../src/domain/board.js';
import { createBoardVersions, type BoardEvent } from '../../src/service/board-events.js';
import { routeBoardEvents } from '../../src/service/route-board-events.js';

const event = (version: number, kind: BoardEvent['kind'] = 'raise', seasonId = 7): BoardEvent => ({
  seasonId,
  window: 'SEASON',
  period: '',
  version,
  kind,
  changes: [],
});

/** The SEASON board of season 7, as the versions look it up (only the season's id is read). */
const board = { season: { id: 7 }, window: 'SEASON', period: '' } as Board;

/** The routing over real board versions, every other target recording its calls in order. */
function routed() {
  const calls: string[] = [];
  const versions = createBoardVersions();
  const route = routeBoardEvents({
    versions,
    rankWatcher: {
      note: (e) => calls.push(`rankWatcher.note ${e.version}`),
      resync: async (seasonId) => {
        calls.push(`rankWatcher.resync ${seasonId ?? 'all'}`);
      },
    },
    topCache: { heard: (e) => calls.push(`topCache.heard ${e.seasonId}`) },
    live: { note: (e) => calls.push(`live.note ${e.version}`) },
    seasons: { invalidate: (id) => calls.push(`seasons.invalidate ${id}`) },
    names: {
      invalidate: (ids) => calls.push(`names.invalidate ${ids.join(',')}`),
      clear: () => calls.push('names.clear'),
    },
  });
  return { route, calls, versions };
}

describe('routeBoardEvents', () => {
  it('notes an event in the versions, then tells the rank watcher, the top cache and the live subscriptions', () => {
    const { route, calls, versions } = routed();
    route.event(event(1));
    route.event(event(2));
    expect(calls).toEqual([
      'rankWatcher.note 1',
      'topCache.heard 7',
      'live.note 1',
      'rankWatcher.note 2',
      'topCache.heard 7',
      'live.note 2',
    ]);
    expect(versions.of(board).seen).toBe(2);
  });

  it("re-reads the season's watched ranks when a board's version went down (Redis lost its history)", () => {
    const { route, calls } = routed();
    route.event(event(5));
    calls.length = 0;
    route.event(event(1));
    expect(calls).toEqual(['rankWatcher.resync 7', 'rankWatcher.note 1', 'topCache.heard 7', 'live.note 1']);
  });

  it('follows versions that are not consecutive by the version before each; one after an older version than the last heard is lost history', () => {
    const { route, calls, versions } = routed();
    const at = (version: number, previous: number): BoardEvent => ({ ...event(version), previous });
    route.event(at(1_000_000, 0));
    route.event(at(2_000_000, 1_000_000));
    // No event missed, and no change near the top: what was cached of the top stays current.
    expect(versions.of(board)).toMatchObject({ seen: 2_000_000, topSeen: 1_000_000 });
    route.event(at(4_000_000, 3_000_000));
    expect(versions.of(board)).toMatchObject({ seen: 4_000_000, topSeen: 4_000_000 });
    calls.length = 0;
    // A failover brought the version 2,000,000 back: the next one is higher, but after an older one.
    const epoch = versions.of(board);
    route.event(at(5_000_000, 2_000_000));
    expect(versions.of(board)).not.toBe(epoch);
    expect(calls).toContain('rankWatcher.resync 7');
  });

  it('drops the cached season on a close before anything pushes', () => {
    const { route, calls } = routed();
    route.event(event(3, 'close', 9));
    expect(calls).toEqual(['seasons.invalidate 9', 'rankWatcher.note 3', 'topCache.heard 9', 'live.note 3']);
  });

  it('drops the display names that changed', () => {
    const { route, calls } = routed();
    route.names(['1', '2']);
    expect(calls).toEqual(['names.invalidate 1,2']);
  });

  it('forgets every version and name and re-reads every watched rank when the connection was lost', () => {
    const { route, calls, versions } = routed();
    route.event(event(4));
    calls.length = 0;
    route.lost();
    expect(calls).toEqual(['names.clear', 'rankWatcher.resync all']);
    expect(versions.of(board).seen).toBe(0);
  });
});
