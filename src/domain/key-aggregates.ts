// Multi-key boards whose keys aggregate on their own (docs/design.md#per-key-aggregates): wins
// SUM, then kills SUM, then the fastest lap BEST (MIN). A player's standing is then a state per
// key (its aggregate and when it was reached), packed into the board's points as one tuple.
import { bitsOf } from './board-keys.js';
import type { BoardKey } from './season.js';

/**
 * A player's keys on such a board: each key's aggregate and the instant (ms) it was reached, the
 * instant of the result whose metadata the standing shows (the latest one), and of their first
 * result. Stored as one int8[] in PostgreSQL: [value 1..n, reached 1..n, latest, first].
 */
export interface KeyState {
  values: number[];
  reached: number[];
  latest: number;
  first: number;
}

/** Does a board with these keys aggregate per key (some key SUMs), instead of BEST of the tuple? */
export const aggregatesPerKey = (keys: readonly BoardKey[] | null | undefined): keys is readonly BoardKey[] =>
  !!keys && keys.some((k) => k.aggregate === 'SUM');

/**
 * The state after one more result: `values` the result's stat per key (unpackKeys), at `at` ms.
 * Each key by its own rule, as BEST and SUM fold a single value (ranking.ts): SUM adds, and was
 * reached at its latest positive result (a zero total: at its first); BEST keeps the better
 * value in the key's order, reached at the earliest result holding it. Order-independent, and
 * the packed tuple never gets worse (a SUM key is DESC), so Redis mirrors it with ZADD GT.
 */
export function foldKeys(
  keys: readonly BoardKey[],
  state: KeyState | undefined,
  values: readonly number[],
  at: number,
): KeyState {
  if (!state) return { values: [...values], reached: values.map(() => at), latest: at, first: at };
  const next: KeyState = {
    values: [...state.values],
    reached: [...state.reached],
    latest: Math.max(state.latest, at),
    first: Math.min(state.first, at),
  };
  keys.forEach((k, i) => {
    const [held, heldAt, v] = [state.values[i]!, state.reached[i]!, values[i]!];
    if (k.aggregate === 'SUM') {
      next.values[i] = held + v;
      if (v === 0) next.reached[i] = held === 0 ? Math.min(heldAt, at) : heldAt;
      else next.reached[i] = held === 0 ? at : Math.max(heldAt, at);
      return;
    }
    const better = k.order === 'DESC' ? v > held : v < held;
    if (better) [next.values[i], next.reached[i]] = [v, at];
    else if (v === held) next.reached[i] = Math.min(heldAt, at);
  });
  return next;
}

/** Is key `k` a SUM whose total is at its max: held there, its later results change nothing? */
const isFull = (k: BoardKey, value: number) => k.aggregate === 'SUM' && value >= k.max;

/**
 * The points and time a state ranks by: its values packed like one result's (board-keys.ts), a
 * SUM at or past its key's max held at max (the max is the largest total the key tells apart),
 * reached when its last key was. A full key's time does not count (it would move later with
 * every result while the packed tuple stays, and the score must never fall); a player whose keys
 * are all full reached them at their first result.
 */
export function packState(keys: readonly BoardKey[], state: KeyState): { points: number; achievedAt: Date } {
  let points = 0;
  const times: number[] = [];
  keys.forEach((k, i) => {
    const v = Math.min(state.values[i]!, k.max);
    points = points * 2 ** bitsOf(k) + (k.order === 'DESC' ? v : k.max - v);
    if (!isFull(k, state.values[i]!)) times.push(state.reached[i]!);
  });
  return { points, achievedAt: new Date(times.length > 0 ? Math.max(...times) : state.first) };
}

/** The state as PostgreSQL stores it (standings.key_state), and back. */
export const stateToRow = (s: KeyState): string[] => [...s.values, ...s.reached, s.latest, s.first].map(String);
export function stateOfRow(row: ReadonlyArray<string | number>): KeyState {
  const n = (row.length - 2) / 2;
  const all = row.map(Number);
  return { values: all.slice(0, n), reached: all.slice(n, 2 * n), latest: all[2 * n]!, first: all[2 * n + 1]! };
}
