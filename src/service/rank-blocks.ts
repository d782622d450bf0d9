/**
 * A list kept in order, in blocks of about `blockSize` items, whose items carry a rank that a run
 * of them can shift by ±1 at once: whole blocks take the shift in their `add`, so shifting a run
 * costs O(blocks + blockSize) however long the run. rank-watcher.ts keeps a board's watched players
 * in one: a result that passes thousands of them costs a few dozen additions, not thousands.
 *
 * An item's rank is `item.rank + item.block.add` while it is in the list (`rankOf`), and plain
 * `item.rank` outside it.
 */
export interface Block<T> {
  items: T[];
  add: number;
}

export interface RankedItem<T> {
  rank: number;
  block?: Block<T>;
}

/** Where an item is: its block's index and its index there. The end of the list is [blocks, 0]. */
export type Pos = readonly [block: number, item: number];

/** Is `a` strictly before `b` in the list? */
export const isBefore = (a: Pos, b: Pos): boolean => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);

export function createRankBlocks<T extends RankedItem<T>>(blockSize = 64) {
  const blocks: Block<T>[] = [];
  /** Blocks shifted as a whole since the last `takeShifted` (their items' ranks moved), and items that left one. */
  const shifted = new Set<Block<T>>();
  const leftShifted = new Set<T>();

  const rankOf = (x: T): number => x.rank + (x.block?.add ?? 0);

  /** The first position whose item satisfies `pred`, which is false and then true along the list. */
  function firstWhere(pred: (x: T) => boolean): Pos {
    let lo = 0;
    let hi = blocks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const items = blocks[mid]!.items;
      if (pred(items[items.length - 1]!)) hi = mid;
      else lo = mid + 1;
    }
    if (lo === blocks.length) return [lo, 0];
    const items = blocks[lo]!.items;
    let l = 0;
    let h = items.length - 1;
    while (l < h) {
      const mid = (l + h) >>> 1;
      if (pred(items[mid]!)) h = mid;
      else l = mid + 1;
    }
    return [lo, l];
  }

  /** Moves `from`'s items into `into` (its neighbour), keeping their ranks. */
  function absorb(into: Block<T>, from: Block<T>, atEnd: boolean): void {
    for (const x of from.items) {
      x.rank += from.add - into.add;
      x.block = into;
    }
    into.items = atEnd ? into.items.concat(from.items) : from.items.concat(into.items);
    // A shifted `from` stays in `shifted` with its items listed: takeShifted still reports them.
    blocks.splice(blocks.indexOf(from), 1);
  }

  return {
    rankOf,
    firstWhere,
    /** The position after the last item. */
    end: (): Pos => [blocks.length, 0],

    /** Inserts `x` (not in the list, `x.rank` its rank) before the first item `after` holds for. */
    insert(x: T, after: (y: T) => boolean): void {
      if (blocks.length === 0) {
        x.block = { items: [x], add: 0 };
        blocks.push(x.block);
        return;
      }
      let [bi, ii] = firstWhere(after);
      if (bi === blocks.length) {
        bi = blocks.length - 1;
        ii = blocks[bi]!.items.length;
      }
      const b = blocks[bi]!;
      x.rank -= b.add;
      x.block = b;
      b.items.splice(ii, 0, x);
      if (b.items.length >= 2 * blockSize) {
        const nb: Block<T> = { items: b.items.splice(blockSize), add: b.add };
        for (const y of nb.items) y.block = nb;
        blocks.splice(bi + 1, 0, nb);
        if (shifted.has(b)) shifted.add(nb);
      }
    },

    /** Removes `x` from the list; `x.rank` is its rank again. */
    remove(x: T): void {
      const b = x.block;
      if (!b) return;
      b.items.splice(b.items.indexOf(x), 1);
      x.rank += b.add;
      x.block = undefined;
      if (shifted.has(b)) leftShifted.add(x);
      if (b.items.length === 0) {
        shifted.delete(b);
        blocks.splice(blocks.indexOf(b), 1);
      } else if (b.items.length < blockSize / 2 && blocks.length > 1) {
        const i = blocks.indexOf(b);
        if (i > 0) absorb(blocks[i - 1]!, b, true);
        else absorb(blocks[i + 1]!, b, false);
      }
    },

    /**
     * Adds `delta` to the ranks of the items in [from, to). Items shifted one by one are given to
     * `each`; whole blocks are remembered for `takeShifted` (returns true when there was one).
     */
    shift(from: Pos, to: Pos, delta: number, each: (x: T) => void): boolean {
      let whole = false;
      let [bi, ii] = from;
      while (bi < to[0] || (bi === to[0] && ii < to[1])) {
        const b = blocks[bi]!;
        const end = bi === to[0] ? to[1] : b.items.length;
        if (ii === 0 && end === b.items.length) {
          b.add += delta;
          shifted.add(b);
          whole = true;
        } else {
          for (let i = ii; i < end; i++) {
            const x = b.items[i]!;
            x.rank += delta;
            each(x);
          }
        }
        bi++;
        ii = 0;
      }
      return whole;
    },

    /** The items of the blocks shifted as a whole since the last call, and those that left such a block. */
    takeShifted(): T[] {
      const out = [...leftShifted];
      for (const b of shifted) out.push(...b.items);
      shifted.clear();
      leftShifted.clear();
      return out;
    },

    get size(): number {
      let n = 0;
      for (const b of blocks) n += b.items.length;
      return n;
    },

    /** Every item in order (tests). */
    items: (): T[] => blocks.flatMap((b) => b.items),
  };
}

export type RankBlocks<T extends RankedItem<T>> = ReturnType<typeof createRankBlocks<T>>;
