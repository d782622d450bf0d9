import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_KEY_BITS, packedMax, packKeys, unpackKeys, validateKeys } from '../../src/domain/board-keys.js';
import type { BoardKey } from '../../src/domain/season.js';
import { thrown } from './helpers.js';

const k = (stat: string, max: number, order: 'ASC' | 'DESC' = 'DESC'): BoardKey => ({ stat, order, max });
// wins (1 bit) DESC, kills (7 bits) DESC, time (12 bits) ASC: a battle royale.
const royale = [k('wins', 1), k('kills', 100), k('time', 3600, 'ASC')];
const of = (stats: Record<string, number>) => (stat: string) => stats[stat];

describe('validateKeys', () => {
  it.each<[string, BoardKey[], string | { code: string; field: string }]>([
    ['a battle royale: 20 bits', royale, 'no error'],
    ['31 bits exactly', [k('a', 2 ** 16 - 1), k('b', 2 ** 15 - 1)], 'no error'],
    ['five keys', ['a', 'b', 'c', 'd', 'e'].map((s) => k(s, 7)), 'no error'],
    ['32 bits', [k('a', 2 ** 16 - 1), k('b', 2 ** 16 - 1)], { code: 'BAD_USER_INPUT', field: 'keys' }],
    ['one key (give stat)', [k('a', 7)], { code: 'BAD_USER_INPUT', field: 'keys' }],
    ['six keys', ['a', 'b', 'c', 'd', 'e', 'f'].map((s) => k(s, 1)), { code: 'BAD_USER_INPUT', field: 'keys' }],
    ['a repeated stat', [k('a', 7), k('a', 3)], { code: 'BAD_USER_INPUT', field: 'keys' }],
    ['a max of 0', [k('a', 0), k('b', 3)], { code: 'BAD_USER_INPUT', field: 'keys' }],
    ['a fractional max', [k('a', 1.5), k('b', 3)], { code: 'BAD_USER_INPUT', field: 'keys' }],
    ['a bad stat name', [k('Kills', 7), k('b', 3)], { code: 'BAD_USER_INPUT', field: 'keys' }],
    ['a SUM key', [{ ...k('wins', 1000), aggregate: 'SUM' }, k('time', 3600, 'ASC')], 'no error'],
    [
      'a SUM key in ASC order (a growing total would rank worse)',
      [{ ...k('wins', 1000, 'ASC'), aggregate: 'SUM' }, k('b', 3)],
      { code: 'BAD_USER_INPUT', field: 'keys' },
    ],
    [
      'an unknown aggregate',
      [{ ...k('wins', 1000), aggregate: 'LAST' as 'SUM' }, k('b', 3)],
      { code: 'BAD_USER_INPUT', field: 'keys' },
    ],
    [
      'an unknown order',
      [{ stat: 'a', max: 7, order: 'UP' as 'ASC' }, k('b', 3)],
      { code: 'BAD_USER_INPUT', field: 'keys' },
    ],
  ])('%s', (_name, keys, expected) => {
    expect(thrown(() => validateKeys(keys))).toEqual(expected);
  });
});

describe('packKeys', () => {
  it.each<[string, Record<string, number>, number | undefined]>([
    ['the best tuple: every bit set', { wins: 1, kills: 127 - 27, time: 0 }, (1 << 19) + ((127 - 27) << 12) + 3600],
    ['the worst tuple', { wins: 0, kills: 0, time: 3600 }, 0],
    ['an ASC key stores max - value', { wins: 0, kills: 0, time: 3599 }, 1],
    ['a missing stat: not on this board', { wins: 1, kills: 3 }, undefined],
  ])('%s', (_name, stats, packed) => {
    expect(packKeys(royale, of(stats))).toBe(packed);
  });

  it.each<[string, Record<string, number>]>([
    ['a value over its max', { wins: 2, kills: 0, time: 0 }],
    ['a negative value', { wins: 0, kills: -1, time: 0 }],
    ['an ASC value over its max', { wins: 0, kills: 0, time: 3601 }],
  ])('refuses %s (BAD_USER_INPUT stats)', (_name, stats) => {
    expect(thrown(() => packKeys(royale, of(stats)))).toEqual({ code: 'BAD_USER_INPUT', field: 'stats' });
  });

  it('uses all 31 bits without going negative (no signed 32-bit shifts)', () => {
    const keys = [k('a', 2 ** 16 - 1), k('b', 2 ** 15 - 1)];
    expect(packKeys(keys, of({ a: 2 ** 16 - 1, b: 2 ** 15 - 1 }))).toBe(2 ** MAX_KEY_BITS - 1);
    expect(packedMax(keys)).toBe(2 ** 31 - 1);
  });
});

// Any 2..5 keys that fit 31 bits, and tuples within their ranges.
const keysArb = fc
  .array(fc.record({ bits: fc.integer({ min: 1, max: 12 }), order: fc.constantFrom<'ASC' | 'DESC'>('ASC', 'DESC') }), {
    minLength: 2,
    maxLength: 5,
  })
  .filter((ks) => ks.reduce((s, x) => s + x.bits, 0) <= MAX_KEY_BITS)
  .chain((ks) =>
    fc
      .tuple(...ks.map((x) => fc.integer({ min: 2 ** (x.bits - 1), max: 2 ** x.bits - 1 })))
      .map((maxes) => ks.map((x, i): BoardKey => ({ stat: `s${i}`, order: x.order, max: maxes[i]! }))),
  );
const tupleOf = (keys: readonly BoardKey[]) => fc.tuple(...keys.map((x) => fc.integer({ min: 0, max: x.max })));

/** The order the keys state, written directly: > 0 when a is the better tuple. */
function better(keys: readonly BoardKey[], a: readonly number[], b: readonly number[]): number {
  for (const [i, x] of keys.entries())
    if (a[i] !== b[i]) return Math.sign(x.order === 'DESC' ? a[i]! - b[i]! : b[i]! - a[i]!);
  return 0;
}

describe('packed values (property)', () => {
  const pack = (keys: readonly BoardKey[], t: readonly number[]) => packKeys(keys, (s) => t[Number(s.slice(1))])!;

  it('order exactly as the tuples do, lexicographically, each key its own direction', () => {
    fc.assert(
      fc.property(
        keysArb.chain((keys) => fc.tuple(fc.constant(keys), tupleOf(keys), tupleOf(keys))),
        ([keys, a, b]) => {
          expect(Math.sign(pack(keys, a) - pack(keys, b))).toBe(better(keys, a, b));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('unpack to the tuple, and stay within 0..packedMax', () => {
    fc.assert(
      fc.property(
        keysArb.chain((keys) => fc.tuple(fc.constant(keys), tupleOf(keys))),
        ([keys, t]) => {
          const packed = pack(keys, t);
          expect(unpackKeys(keys, packed)).toEqual(t);
          expect(packed).toBeGreaterThanOrEqual(0);
          expect(packed).toBeLessThanOrEqual(packedMax(keys));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
