import { describe, expect, it } from 'vitest';
import {
  createPushPacer,
  nextStep,
  PUSH_SLICE,
  sliceQuota,
  slicesPerPeriod,
  type PacerStep,
} from '../../src/service/push-pacer.js';
import { manualClock } from '../support/manual-clock.js';

describe('the pacing rules', () => {
  it.each([
    [1_000, 100],
    [25, 2],
    [10, 1],
    [5, 1],
    [0, 1],
  ])('a period of %i ms is cut into %i slices', (everyMs, slices) => {
    expect(slicesPerPeriod(everyMs)).toBe(slices);
  });

  it.each([
    ['an even share of the slices left', 999, 100, 0, 10],
    ['rounded up, so the last slice is not the largest', 1_001, 100, 0, 11],
    ['at least one while any wait', 5, 100, 0, 1],
    ['all of them in the last slice', 5, 100, 99, 5],
    ['all of them once the period ran over its slices', 7, 100, 100, 7],
    ['never more than PUSH_SLICE', 50_000, 100, 0, PUSH_SLICE],
    ['none when none wait', 0, 100, 0, 0],
  ])('a slice sends %s', (_, waiting, slices, done, quota) => {
    expect(sliceQuota(waiting, slices, done)).toBe(quota);
  });

  const period = { start: 5_000, done: 3 };
  const base = { everyMs: 1_000, slices: 100, pushing: 0, later: 0, blocksPending: false };
  it.each<[string, Partial<typeof base>, PacerStep]>([
    ["this period's next slice, at its place in the period", { pushing: 40 }, { run: 'slice', at: 5_030 }],
    [
      'the next slice first, even with pushes for the next period',
      { pushing: 1, later: 9 },
      { run: 'slice', at: 5_030 },
    ],
    ['the next period, when only it has pushes', { later: 9 }, { run: 'period', at: 6_000 }],
    ['the next period, when only whole blocks shifted', { blocksPending: true }, { run: 'period', at: 6_000 }],
    ['nothing, when nothing waits (an idle board costs no timer)', {}, undefined],
  ])('after a slice comes %s', (_, over, step) => {
    expect(nextStep(period, { ...base, ...over })).toEqual(step);
  });
});

describe('the push pacer', () => {
  const pacerOn = (everyMs: number, shiftedAsBlocks: string[] = []) => {
    const clock = manualClock(10_000);
    const pushes: Array<{ at: number; key: string }> = [];
    const pacer = createPushPacer<string, string>({
      everyMs,
      clock,
      push: (key) => pushes.push({ at: clock.now(), key }),
      takeShifted: () => shiftedAsBlocks.splice(0).map((k) => [k, 'board'] as const),
    });
    return { clock, pushes, pacer };
  };

  it("pushes a player's own new score at the end of the turn, and no rank moved by others before it", () => {
    const { clock, pushes, pacer } = pacerOn(1_000);
    pacer.schedule('board', ['me'], [], false);
    pacer.schedule('board', ['me'], [], false);
    expect(pushes).toEqual([]);
    clock.turn();
    expect(pushes).toEqual([{ at: 10_000, key: 'me' }]); // once for the two events of the turn
    expect(clock.pending()).toBe(0);
  });

  it('spreads the ranks moved by others over the period in slices, each player once per period', () => {
    const { clock, pushes, pacer } = pacerOn(1_000);
    const ids = Array.from({ length: 1_000 }, (_, i) => `p${i}`);
    pacer.schedule('board', [], ids, false);
    clock.advance(500);
    pacer.schedule('board', [], ['p0', 'p999'], false); // p0 was pushed, p999 not yet
    clock.advance(499);
    expect(pushes).toHaveLength(1_000);
    const perSlice = new Map<number, number>();
    for (const p of pushes) perSlice.set(p.at, (perSlice.get(p.at) ?? 0) + 1);
    expect([...perSlice.keys()]).toEqual(Array.from({ length: 100 }, (_, k) => 10_000 + k * 10));
    expect(new Set(perSlice.values())).toEqual(new Set([10]));
    // p0, moved again after its push, waits for the next period; p999 was still waiting in this one.
    clock.advance(1);
    expect(pushes.slice(1_000)).toEqual([{ at: 11_000, key: 'p0' }]);
    clock.advance(5_000);
    expect(pushes).toHaveLength(1_001);
    expect(clock.pending()).toBe(0);
  });

  it("takes a player's own push out of the ranks waiting for the period", () => {
    const { clock, pushes, pacer } = pacerOn(1_000);
    pacer.schedule('board', [], ['a'], false);
    clock.advance(0); // the first period starts at once and pushes a
    pacer.schedule('board', [], ['b'], false);
    pacer.schedule('board', ['b'], [], false);
    clock.turn();
    clock.advance(2_000);
    expect(pushes).toEqual([
      { at: 10_000, key: 'a' },
      { at: 10_000, key: 'b' },
    ]);
  });

  it('collects the players of whole shifted blocks when a period begins', () => {
    const blocks = ['x', 'y'];
    const { clock, pushes, pacer } = pacerOn(100, blocks);
    pacer.schedule('board', [], [], true);
    clock.advance(100);
    // Two pushes over a period of ten slices: one per slice.
    expect(pushes).toEqual([
      { at: 10_000, key: 'x' },
      { at: 10_010, key: 'y' },
    ]);
    expect(clock.pending()).toBe(0);
  });

  it('pushes everything waiting on flush, and sets no timer after it', () => {
    const { clock, pushes, pacer } = pacerOn(1_000, ['z']);
    pacer.schedule('board', [], ['a'], false);
    clock.advance(0);
    pacer.schedule('board', ['me'], ['b'], true);
    pacer.flush();
    expect(pushes.map((p) => p.key)).toEqual(['a', 'me', 'z', 'b']);
    expect(clock.pending()).toBe(0);
  });
});
