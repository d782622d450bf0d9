import { badInput } from './errors.js';
import type { BoardKey } from './season.js';

/**
 * The keys of a multi-key board packed into one points value (docs/design.md#boards): each key
 * takes the bits of its largest value, most significant first, stored as is when DESC and as
 * `max - value` when ASC, so a higher packed value is always the better tuple. Packed values rank
 * exactly like the tuples, lexicographically, and then by time like any points (score-codec.ts).
 */

/** Names of boards and stats: a lower-case letter, then letters, digits or '_', at most 32. */
const NAME = /^[a-z][a-z0-9_]{0,31}$/;
/** Most keys one board ranks by. */
export const MAX_KEYS = 5;
/** Most bits the keys of one board may take together: points are a GraphQL Int (31 bits). */
export const MAX_KEY_BITS = 31;

/** BAD_USER_INPUT `field` unless `name` is a board or stat name. */
export function checkName(name: string, field: string): void {
  if (typeof name !== 'string' || !NAME.test(name))
    throw badInput(field, `${field} must be 1..32 of a-z, 0-9 and _, starting with a letter: ${JSON.stringify(name)}`);
}

/** Bits a key takes: those of its largest value. */
export const bitsOf = (key: BoardKey) => key.max.toString(2).length;

/** The largest packed value of `keys`: every key at its best. */
export function packedMax(keys: readonly BoardKey[]): number {
  return 2 ** keys.reduce((bits, k) => bits + bitsOf(k), 0) - 1;
}

/** Checks a board's keys: 2..MAX_KEYS distinct stats, each max in 1..2^31-1, MAX_KEY_BITS bits in all. */
export function validateKeys(keys: readonly BoardKey[]): void {
  if (!Array.isArray(keys) || keys.length < 2 || keys.length > MAX_KEYS)
    throw badInput('keys', `keys must hold 2..${MAX_KEYS} keys (one stat: give stat instead)`);
  for (const k of keys) {
    checkName(k.stat, 'keys');
    if (!Number.isInteger(k.max) || k.max < 1 || k.max > 2 ** 31 - 1)
      throw badInput('keys', `the max of key ${k.stat} must be an integer in 1..${2 ** 31 - 1}`);
    if (k.order !== 'DESC' && k.order !== 'ASC')
      throw badInput('keys', `the order of key ${k.stat} must be DESC or ASC`);
    if (k.aggregate !== undefined && k.aggregate !== 'BEST' && k.aggregate !== 'SUM')
      throw badInput('keys', `the aggregate of key ${k.stat} must be BEST or SUM`);
    // A total only grows: on an ASC key it would rank worse, and the board's score would have to fall.
    if (k.aggregate === 'SUM' && k.order !== 'DESC')
      throw badInput('keys', `key ${k.stat}: a SUM key is DESC (a running total can only grow)`);
  }
  if (new Set(keys.map((k) => k.stat)).size !== keys.length) throw badInput('keys', 'keys must rank distinct stats');
  const bits = keys.reduce((sum, k) => sum + bitsOf(k), 0);
  if (bits > MAX_KEY_BITS)
    throw badInput(
      'keys',
      `the keys need ${bits} bits (${keys.map((k) => `${k.stat}: ${bitsOf(k)}`).join(', ')}); at most ${MAX_KEY_BITS} fit one points value`,
    );
}

/**
 * The packed value of a result's stats on a board with `keys`; undefined when it lacks one of
 * them (it does not count on that board). BAD_USER_INPUT 'stats' for a value outside its key's range.
 */
export function packKeys(keys: readonly BoardKey[], statOf: (stat: string) => number | undefined): number | undefined {
  let packed = 0;
  for (const k of keys) {
    const v = statOf(k.stat);
    if (v === undefined) return undefined;
    if (!Number.isInteger(v) || v < 0 || v > k.max)
      throw badInput('stats', `stat ${k.stat} must be an integer in 0..${k.max}`);
    // Multiplication, not <<: the packed value may use all 31 bits, and JS shifts are signed 32-bit.
    packed = packed * 2 ** bitsOf(k) + (k.order === 'DESC' ? v : k.max - v);
  }
  return packed;
}

/** The stats a packed value holds, in key order (packKeys' inverse). */
export function unpackKeys(keys: readonly BoardKey[], packed: number): number[] {
  const values: number[] = new Array<number>(keys.length);
  let rest = packed;
  for (let i = keys.length - 1; i >= 0; i--) {
    const k = keys[i]!;
    const size = 2 ** bitsOf(k);
    const stored = rest % size;
    rest = (rest - stored) / size;
    values[i] = k.order === 'DESC' ? stored : k.max - stored;
  }
  return values;
}
