import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRankBlocks, isBefore, type Block } from '../../src/service/rank-blocks.js';

interface Item {
  key: number;
  rank: number;
  block?: Block<Item>;
}

type Op =
  | { op: 'insert'; key: number }
  | { op: 'remove'; key: number }
  | { op: 'shift'; a: number; b: number }
  | { op: 'check' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ op: 'check' as const }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('insert' as const), key: fc.integer({ min: 0, max: 40 }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('remove' as const), key: fc.integer({ min: 0, max: 40 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('shift' as const),
      a: fc.integer({ min: 0, max: 41 }),
      b: fc.integer({ min: 0, max: 41 }),
    }),
  },
);

describe('rank blocks (an ordered list whose runs shift rank at once)', () => {
  for (const blockSize of [1, 2, 3, 8]) {
    it(`blocks of ${blockSize}: order, ranks and the shifted items match a plain array`, () => {
      fc.assert(
        fc.property(fc.array(opArb, { minLength: 40, maxLength: 200, size: 'max' }), (ops) => {
          const list = createRankBlocks<Item>(blockSize);
          const model: Array<{ key: number; rank: number }> = [];
          const items = new Map<number, Item>();
          const moved = new Set<number>(); // the model's items whose rank moved
          const reported = new Set<number>(); // what the list said moved
          for (const o of ops) {
            if (o.op === 'insert' && !items.has(o.key)) {
              const rank = o.key * 10;
              const x: Item = { key: o.key, rank };
              items.set(o.key, x);
              list.insert(x, (y) => y.key > o.key);
              model.splice(
                model.findIndex((y) => y.key > o.key) === -1 ? model.length : model.findIndex((y) => y.key > o.key),
                0,
                { key: o.key, rank },
              );
            } else if (o.op === 'remove' && items.has(o.key)) {
              const x = items.get(o.key)!;
              list.remove(x);
              items.delete(o.key); // still reported if it moved: it may be placed again
              const m = model.splice(
                model.findIndex((y) => y.key === o.key),
                1,
              )[0]!;
              // Outside the list an item's rank is plain.
              expect(x.rank).toBe(m.rank);
            } else if (o.op === 'shift') {
              // The run of keys in [lo, hi), found the way rank-watcher.ts finds it.
              const [lo, hi] = o.a <= o.b ? [o.a, o.b] : [o.b, o.a];
              const delta = o.a <= o.b ? 1 : -1;
              list.shift(
                list.firstWhere((y) => y.key >= lo),
                list.firstWhere((y) => y.key >= hi),
                delta,
                (y) => reported.add(y.key),
              );
              for (const m of model) {
                if (m.key >= lo && m.key < hi) {
                  m.rank += delta;
                  moved.add(m.key);
                }
              }
            }
            // Every item whose rank moved since the last check is reported, one by one or with its block.
            if (o.op !== 'check') continue;
            for (const x of list.takeShifted()) reported.add(x.key);
            for (const key of moved) expect(reported.has(key), `key ${key}`).toBe(true);
            moved.clear();
            reported.clear();
          }
          expect(list.items().map((x) => [x.key, list.rankOf(x)])).toEqual(model.map((m) => [m.key, m.rank]));
          expect(list.size).toBe(model.length);
        }),
        { numRuns: 500 },
      );
    });
  }

  it('items of a shifted block stay reported when it is merged into its neighbour or they leave it', () => {
    const list = createRankBlocks<Item>(3);
    const items = [1, 2, 3, 4, 5, 6].map((key): Item => ({ key, rank: key }));
    for (const x of items) list.insert(x, (y) => y.key > x.key);
    expect(list.takeShifted()).toEqual([]);
    // Two blocks, [1 2 3] [4 5 6]: the run 4..6 is a whole block.
    list.shift(
      list.firstWhere((y) => y.key >= 4),
      list.end(),
      1,
      () => expect.unreachable('shifted one by one'),
    );
    list.remove(items[4]!);
    list.remove(items[5]!); // [4] alone is merged into [1 2 3]
    expect(list.items().map((x) => [x.key, list.rankOf(x)])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
      [4, 5],
    ]);
    // Reported: 5 and 6 (they left), 4 (its block was merged); the merged block's others may be too.
    expect(list.takeShifted().map((x) => x.key)).toEqual(expect.arrayContaining([4, 5, 6]));
    expect(list.takeShifted()).toEqual([]);
  });
});

describe('isBefore', () => {
  it.each([
    [[0, 1], [0, 2], true],
    [[0, 2], [0, 1], false],
    [[0, 9], [1, 0], true],
    [[1, 0], [0, 9], false],
    [[2, 3], [2, 3], false],
  ] as const)('%j before %j: %s', (a, b, expected) => {
    expect(isBefore(a, b)).toBe(expected);
  });
});
