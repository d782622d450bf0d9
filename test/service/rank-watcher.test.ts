import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
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

describe('ranks moved by others: periods of pushes spread over time', () => {
  it('each player once per period, in slices over the period, with the rank then; own scores at once', async () => {
    vi.useFakeTimers();
    try {
      const season = smallSeason('ORDINAL');
      const board: Board = { season, window: 'SEASON', period: '' };
      const model = modelBoard(season);
      const ids = Array.from({ length: 1_000 }, (_, i) => `p${i}`);
      model.set(
        'raise',
        ids.map((id, i): [string, number] => [id, i]),
      ); // before anyone watches
      const watcher = createRankWatcher({
        othersEveryMs: 1_000,
        source: { entries: (_b, x) => Promise.resolve(model.read(x)) },
      });
      const pushes: Array<{ at: number; player: string; entry: RankedStanding | null }> = [];
      for (const id of ids) watcher.watch(board, id, (entry) => pushes.push({ at: Date.now(), player: id, entry }));
      await vi.advanceTimersByTimeAsync(0);
      expect(pushes).toHaveLength(1_000); // the first entries
      pushes.length = 0;
      const t0 = Date.now();

      watcher.note(model.set('raise', [['new1', 1_023]])); // everyone watched drops a rank
      await vi.advanceTimersByTimeAsync(300);
      const early = new Set(pushes.map((p) => p.player));
      watcher.note(model.set('raise', [['new2', 1_022]])); // and another
      await vi.advanceTimersByTimeAsync(200);
      watcher.note(model.set('raise', [['p7', 1_021]])); // a watched player's own new score
      await vi.advanceTimersByTimeAsync(0);
      expect(pushes.at(-1)).toEqual({ at: t0 + 500, player: 'p7', entry: model.entry('p7') });
      await vi.advanceTimersByTimeAsync(4_000);

      // Spread: the 999 others of the first period over its 100 slices, 10 ms apart (p7's own push
      // took it out of the period's list).
      const first = pushes.filter((p) => p.at < t0 + 1_000 && p.player !== 'p7');
      expect(first).toHaveLength(999);
      const perSlice = new Map<number, number>();
      for (const p of first) perSlice.set(p.at, (perSlice.get(p.at) ?? 0) + 1);
      expect(perSlice.size).toBe(100);
      expect(Math.max(...perSlice.values())).toBe(10);
      // With the rank at the time: before the second event one rank down, after it two, and after
      // p7's jump above them (the pushes after its own) three.
      const p7Jumped = pushes.findIndex((p) => p.player === 'p7');
      for (const p of first) {
        const i = Number(p.player.slice(1));
        const rank = (early.has(p.player) ? 1_001 : 1_002) - i + (i > 7 && pushes.indexOf(p) > p7Jumped ? 1 : 0);
        expect(p.entry?.rank, `${p.player} at +${p.at - t0} ms`).toBe(rank);
      }
      // The players pushed before the second event (the slices at +0 to +300 ms), and those above p7
      // pushed before its jump, hear of it in the next period, not before.
      expect(early.size).toBe(310);
      const jumpedOver = pushes.slice(0, p7Jumped).filter((p) => Number(p.player.slice(1)) > 7);
      const second = pushes.filter((p) => p.at >= t0 + 1_000);
      expect(new Set(second.map((p) => p.player))).toEqual(new Set([...early, ...jumpedOver.map((p) => p.player)]));
      expect(Math.min(...second.map((p) => p.at))).toBe(t0 + 1_000);
      // Others' moves reach a player a period apart (a period's order is the order players were
      // shifted in after their push), and every last push is the player's entry now.
      const last = new Map<string, { at: number; entry: RankedStanding | null }>();
      for (const p of pushes) {
        const before = last.get(p.player);
        if (before && p.player !== 'p7') expect(p.at - before.at, p.player).toBeGreaterThanOrEqual(1_000);
        last.set(p.player, p);
      }
      for (const id of ids) expect(last.get(id)?.entry ?? null, id).toEqual(model.entry(id));
    } finally {
      vi.useRealTimers();
    }
  });
});
