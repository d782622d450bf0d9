import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Board } from '../../src/domain/board.js';
import { compareEntries } from '../../src/domain/rank-shift.js';
import type { RankedStanding } from '../../src/domain/ranking.js';
import { createCodec } from '../../src/domain/score-codec.js';
import type { RankStyle, Season } from '../../src/domain/season.js';
import type { BoardEvent } from '../../src/service/board-events.js';
import { createRankWatcher } from '../../src/service/rank-watcher.js';
import { smallSeason } from '../domain/helpers.js';

const MAX_SCORE = 2 ** 10 - 1;
const PLAYERS = ['1', '2', '3', '9', '10', '11', '42', 'a', 'b', 'c'];

/** Redis in miniature: one board, its version, and the events it published but did not deliver yet. */
function modelBoard(season: Season) {
  const scores = new Map<string, number>();
  const codec = createCodec(season);
  const step = 16;
  let version = 0;
  const rankOf = (x: string): number => {
    const sx = scores.get(x)!;
    let above = 0;
    for (const [m, s] of scores) {
      if (m === x) continue;
      if (
        season.rankStyle === 'COMPETITION'
          ? Math.floor(s / step) > Math.floor(sx / step)
          : compareEntries(s, m, sx, x) < 0
      )
        above++;
    }
    return above + 1;
  };
  const entry = (x: string): RankedStanding | null => {
    const s = scores.get(x);
    return s === undefined ? null : { playerId: x, rank: rankOf(x), ...codec.decode(s) };
  };
  return {
    entry,
    /** Sets member scores in one "script call"; returns its event. */
    set(kind: 'raise' | 'reset', pairs: Array<[string, number | null]>): BoardEvent {
      const changes = [];
      for (const [m, score] of pairs) {
        const old = scores.get(m) ?? null;
        if (old === score || (kind === 'raise' && (score === null || (old !== null && score <= old)))) continue;
        if (score === null) scores.delete(m);
        else scores.set(m, score);
        changes.push({
          playerId: m,
          old: old === null ? null : String(old),
          score: score === null ? null : String(score),
          rank: score === null ? 0 : rankOf(m),
        });
      }
      if (changes.length > 0) version++;
      return { seasonId: 1, window: 'SEASON', period: '', version, kind, changes };
    },
    read(ids: readonly string[]) {
      return { version, value: ids.map(entry).filter((e): e is RankedStanding => e !== null) };
    },
  };
}

type Op =
  | { op: 'write'; kind: 'raise' | 'reset'; pairs: Array<[string, number | null]> }
  | { op: 'deliver'; n: number }
  | { op: 'watch'; player: string }
  | { op: 'unwatch'; player: string }
  | { op: 'answer' }
  | { op: 'turn' };

const player = fc.constantFrom(...PLAYERS);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant('write' as const),
      kind: fc.constant('raise' as const),
      pairs: fc.array(
        fc.tuple(
          player,
          fc.integer({ min: 0, max: MAX_SCORE }).map((n): number | null => n),
        ),
        { minLength: 1, maxLength: 3 },
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('write' as const),
      kind: fc.constant('reset' as const),
      pairs: fc.array(fc.tuple(player, fc.option(fc.integer({ min: 0, max: MAX_SCORE }), { nil: null })), {
        minLength: 1,
        maxLength: 2,
      }),
    }),
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('deliver' as const), n: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('watch' as const), player }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('unwatch' as const), player }) },
  { weight: 2, arbitrary: fc.constant({ op: 'answer' as const }) },
  { weight: 2, arbitrary: fc.constant({ op: 'turn' as const }) },
);

const turn = () => new Promise((r) => setImmediate(r));

/**
 * Runs a random interleaving of writes, late event deliveries, subscriptions and slow reads, then
 * lets everything arrive: every watched player's last push must be their entry on the model board.
 */
async function runScenario(style: RankStyle, ops: Op[], resyncAt?: number, blockSize?: number): Promise<void> {
  const season = smallSeason(style);
  const board: Board = { season, window: 'SEASON', period: '' };
  const model = modelBoard(season);
  const inFlight: BoardEvent[] = [];
  // A read sees Redis when it is sent; its answer arrives only when the test says so.
  const answers: Array<() => void> = [];
  const watcher = createRankWatcher({
    blockSize,
    source: {
      entries: (_b, ids) => {
        const snapshot = model.read(ids);
        return new Promise((resolve) => answers.push(() => resolve(snapshot)));
      },
    },
    onError: (err) => {
      throw err;
    },
  });
  const last = new Map<string, RankedStanding | null>();
  const stops = new Map<string, () => void>();
  const deliver = (n: number) => {
    for (const e of inFlight.splice(0, n)) watcher.note(e);
  };

  for (const [i, op] of ops.entries()) {
    if (i === resyncAt) void watcher.resync();
    switch (op.op) {
      case 'write':
        inFlight.push(model.set(op.kind, op.pairs));
        break;
      case 'deliver':
        deliver(op.n);
        break;
      case 'watch':
        if (!stops.has(op.player))
          stops.set(
            op.player,
            watcher.watch(board, op.player, (e) => last.set(op.player, e)),
          );
        break;
      case 'unwatch':
        stops.get(op.player)?.();
        stops.delete(op.player);
        last.delete(op.player);
        break;
      case 'answer':
        answers.shift()?.();
        break;
      case 'turn':
        await turn();
        break;
    }
  }
  // Everything arrives: events in order, every read answered (and the reads those trigger).
  for (let round = 0; round < 5; round++) {
    await turn();
    deliver(inFlight.length);
    while (answers.length > 0) {
      answers.shift()!();
      await turn();
    }
  }
  watcher.flush(); // ranks moved by others go out once a second
  for (const p of stops.keys()) {
    expect(last.get(p) ?? null, `player ${p}`).toEqual(model.entry(p));
  }
}

describe('rankChanged from update events (a model board, late events, slow reads)', () => {
  for (const style of ['ORDINAL', 'COMPETITION'] as const) {
    it(`${style}: every watched player's last push is their entry on the board`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 5, maxLength: 80 }), async (ops) => {
          await runScenario(style, ops);
        }),
        { numRuns: 300 },
      );
    });

    it(`${style}: the same with blocks of 3 watched players (runs shifted as whole blocks, blocks split and merged)`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 5, maxLength: 80 }), async (ops) => {
          await runScenario(style, ops, undefined, 3);
        }),
        { numRuns: 300 },
      );
    });

    it(`${style}: a resync in the middle changes nothing that was right`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 5, maxLength: 60 }), fc.nat(60), async (ops, at) => {
          await runScenario(style, ops, at, 3);
        }),
        { numRuns: 150 },
      );
    });
  }
});
