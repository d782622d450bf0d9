import { describe, expect, it } from 'vitest';
import type { Board } from '../../src/domain/board.js';
import type { BoardVersion } from '../../src/service/board-events.js';
import {
  canAdvance,
  evictionCandidate,
  followStep,
  isCurrent,
  isOld,
  newSlot,
  tickStep,
  type Slot,
} from '../../src/service/top-slot.js';

const board = { season: { id: 1 }, window: 'SEASON', period: '' } as Board;
const epoch = (topSeen: number): BoardVersion => ({ id: '1|SEASON|', seen: topSeen, topSeen, known: topSeen });
const snap = (version: number) => ({ version, size: 0, entries: [] });
const slot = (over: Partial<Slot> = {}): Slot => ({ ...newSlot(board, 0), ...over });
const watched = () => new Set([() => {}]);
const yes = () => true;
const no = () => false;

describe('a top cache slot', () => {
  const now = epoch(7);
  it.each<[string, Partial<Slot>, boolean]>([
    ['current when read at the last version that touched the top, in this epoch', { snap: snap(7), epoch: now }, true],
    ['current when read after it', { snap: snap(9), epoch: now }, true],
    ['behind when read before it', { snap: snap(6), epoch: now }, false],
    ['behind when read in another epoch (Redis lost the history)', { snap: snap(7), epoch: epoch(7) }, false],
    ['behind when not read yet', {}, false],
  ])('is %s', (_, over, current) => {
    expect(isCurrent(slot(over), now)).toBe(current);
  });

  it.each([
    [1_000, 1_999, 1_000, false],
    [1_000, 2_000, 1_000, true],
    [0, 60_000, 60_000, true],
  ])('read at %i is old at %i for an age of %i ms: %s', (fetchedAt, at, age, old) => {
    expect(isOld({ fetchedAt }, at, age)).toBe(old);
  });

  const busy = Promise.resolve();
  it.each<[string, Partial<Slot>, () => boolean, number, 'none' | 'read' | number]>([
    ['is read at once once the gap passed', { listeners: watched(), readAt: 1_000 }, no, 1_050, 'read'],
    ['waits out the rest of the gap', { listeners: watched(), readAt: 1_000 }, no, 1_020, 30],
    ['is read at once when never read', { listeners: watched() }, no, 0, 'read'],
    ['is not read when current', { listeners: watched(), readAt: 1_000 }, yes, 2_000, 'none'],
    ['is not read when nobody watches it', { readAt: 1_000 }, no, 2_000, 'none'],
    ['is not read again while a read is out', { listeners: watched(), refreshing: busy }, no, 2_000, 'none'],
    ['is not read again while a read waits', { listeners: watched(), following: () => {} }, no, 2_000, 'none'],
  ])('that heard news %s', (_, over, current, at, step) => {
    expect(followStep(slot(over), current, at, 50)).toBe(step);
  });

  const limits = { watchedMaxAgeMs: 60_000, idleEvictMs: 60_000 };
  it.each<[string, Partial<Slot>, () => boolean, number, 'refresh' | 'evict' | 'keep']>([
    ['keeps a watched, current, young board', { listeners: watched(), fetchedAt: 1 }, yes, 60_000, 'keep'],
    ['reads a watched board that fell behind', { listeners: watched(), fetchedAt: 1 }, no, 2, 'refresh'],
    ['reads a watched board a minute without news', { listeners: watched(), fetchedAt: 1 }, yes, 60_001, 'refresh'],
    ['keeps an unwatched board used within the minute', { lastUsed: 1 }, no, 60_001, 'keep'],
    ['drops an unwatched board unused for longer', { lastUsed: 1 }, no, 60_002, 'evict'],
  ])('tick %s', (_, over, current, at, step) => {
    expect(tickStep(slot(over), current, at, limits)).toBe(step);
  });

  it('makes room by dropping the least recently used board nobody watches', () => {
    const slots: Array<[string, Slot]> = [
      ['watched', slot({ listeners: watched(), lastUsed: 1 })],
      ['older', slot({ lastUsed: 5 })],
      ['newer', slot({ lastUsed: 9 })],
    ];
    expect(evictionCandidate(slots)).toBe('older');
    expect(evictionCandidate(slots.slice(0, 1))).toBeUndefined();
  });

  it.each<[string, Partial<Slot>, boolean]>([
    ['moves a snapshot of this epoch in memory', { snap: snap(7), epoch: epoch(7) }, true],
    ['does not while a read is out', { snap: snap(7), epoch: epoch(7), refreshing: busy }, false],
    ['does not without a snapshot', {}, false],
  ])('%s', (_, over, can) => {
    const s = slot(over);
    expect(canAdvance(s, s.epoch ?? epoch(7))).toBe(can);
  });
  it('does not move a snapshot of another epoch', () => {
    expect(canAdvance(slot({ snap: snap(7), epoch: epoch(7) }), epoch(7))).toBe(false);
  });
});
