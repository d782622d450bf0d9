import { describe, expect, it } from 'vitest';
import type { Board } from '../../src/domain/board.js';
import type { RankStyle } from '../../src/domain/season.js';
import type { BoardEvent } from '../../src/service/board-events.js';
import {
  applyEvent,
  createBoardWatch,
  entryOf,
  newWatched,
  notify,
  takeRead,
  type BoardWatch,
  type Watched,
} from '../../src/service/watched-board.js';
import { smallSeason } from '../domain/helpers.js';

/** A board whose watched players were read at version 1 with these points and ranks (null: not on it). */
function watching(style: RankStyle, players: Array<[string, number | null, number]>, blockSize?: number) {
  const season = smallSeason(style);
  const board: Board = { season, window: 'SEASON', period: '' };
  const bw = createBoardWatch(board, blockSize);
  for (const [id] of players) bw.players.set(id, newWatched(id));
  const value = players
    .filter(([, points]) => points !== null)
    .map(([playerId, points, rank]) => ({ playerId, points: points!, achievedAt: season.startsAt, rank }));
  takeRead(
    bw,
    players.map(([id]) => id),
    { version: 1, value },
  );
  bw.fresh.clear(); // the events after version 1 are on their way: none counted yet
  return bw;
}

/** A composite score at the season's start (score = points * 16 + 15 in smallSeason). */
const score = (points: number | null) => (points === null ? null : String(points * 16 + 15));
const event = (version: number, changes: Array<[string, number | null, number | null, number]>): BoardEvent => ({
  seasonId: 1,
  window: 'SEASON',
  period: '',
  version,
  kind: 'reset',
  changes: changes.map(([playerId, old, now, rank]) => ({ playerId, old: score(old), score: score(now), rank })),
});
const ranks = (bw: BoardWatch) =>
  Object.fromEntries([...bw.players].map(([id, w]) => [id, entryOf(bw, w)?.rank ?? null]));
const ids = (ws: Set<Watched>) => [...ws].map((w) => w.playerId).sort();

describe('a watched board applies an event', () => {
  const ordinal: Array<[string, number | null, number]> = [
    ['a', 30, 1],
    ['b', 20, 2],
    ['c', 10, 3],
  ];
  const ties: Array<[string, number | null, number]> = [
    ['a', 30, 1],
    ['b', 20, 2],
    ['c', 20, 2],
  ];
  it.each<
    [
      string,
      RankStyle,
      Array<[string, number | null, number]>,
      BoardEvent,
      Record<string, number | null>,
      string[],
      string[],
    ]
  >([
    [
      'a new member passing two',
      'ORDINAL',
      ordinal,
      event(2, [['x', null, 25, 2]]),
      { a: 1, b: 3, c: 4 },
      [],
      ['b', 'c'],
    ],
    ['a new member below everyone', 'ORDINAL', ordinal, event(2, [['x', null, 5, 4]]), { a: 1, b: 2, c: 3 }, [], []],
    [
      'a watched player rising to the top',
      'ORDINAL',
      ordinal,
      event(2, [['c', 10, 40, 1]]),
      { a: 2, b: 3, c: 1 },
      ['c'],
      ['a', 'b'],
    ],
    [
      'a watched player leaving the board',
      'ORDINAL',
      ordinal,
      event(2, [['b', 20, null, 0]]),
      { a: 1, b: null, c: 2 },
      ['b'],
      ['c'],
    ],
    [
      'two changes in one event',
      'ORDINAL',
      ordinal,
      event(2, [
        ['x', null, 25, 2],
        ['a', 30, 5, 5],
      ]),
      { a: 5, b: 2, c: 3 },
      ['a'],
      ['b', 'c'],
    ],
    [
      'a new member tying two (competition: ties share a rank)',
      'COMPETITION',
      ties,
      event(2, [['x', null, 20, 2]]),
      { a: 1, b: 2, c: 2 },
      [],
      [],
    ],
    [
      'a new member above two tied',
      'COMPETITION',
      ties,
      event(2, [['x', null, 25, 2]]),
      { a: 1, b: 3, c: 3 },
      [],
      ['b', 'c'],
    ],
  ])('%s (%s)', (_, style, players, e, after, own, shifted) => {
    for (const blockSize of [undefined, 1]) {
      const bw = watching(style, players, blockSize);
      const [o, s] = [new Set<Watched>(), new Set<Watched>()];
      // Players of whole shifted blocks come out of takeShifted (rank-blocks.ts); the others one by one.
      applyEvent(bw, e, o, s);
      for (const w of bw.ranked.takeShifted()) s.add(w);
      expect(ranks(bw)).toEqual(after);
      expect(ids(o)).toEqual(own);
      expect(ids(s).filter((id) => !own.includes(id))).toEqual(shifted);
      expect(bw.lastVersion).toBe(2);
    }
  });

  it('does not move players again that were read at a version the event is already in', () => {
    const bw = watching('ORDINAL', [
      ['a', 30, 1],
      ['b', 20, 3], // read at version 2: x (version 2) is already above b
    ]);
    const b = bw.players.get('b')!;
    b.version = 2;
    bw.fresh.add(b);
    applyEvent(bw, event(2, [['x', null, 25, 2]]), new Set(), new Set());
    expect(ranks(bw)).toEqual({ a: 1, b: 3 });
    expect(bw.fresh.size).toBe(0); // events after version 2 move b again
  });
});

describe('a watched board takes a read', () => {
  const season = smallSeason('ORDINAL');
  const at = (playerId: string, points: number, rank: number) => ({
    playerId,
    points,
    achievedAt: season.startsAt,
    rank,
  });

  it('reports first entries as changed, and a known entry that differs as drift', () => {
    const bw = watching('ORDINAL', []);
    for (const id of ['a', 'b', 'gone']) bw.players.set(id, newWatched(id));
    const first = takeRead(bw, ['a', 'b', 'gone'], { version: 3, value: [at('a', 30, 1), at('b', 20, 2)] });
    expect(first.changed.map((w) => w.playerId)).toEqual(['a', 'b', 'gone']);
    expect(first.drift).toBe(0);
    expect(ranks(bw)).toEqual({ a: 1, b: 2, gone: null });
    const same = takeRead(bw, ['a', 'b'], { version: 4, value: [at('a', 30, 1), at('b', 20, 2)] });
    expect(same).toEqual({ changed: [], drift: 0 });
    bw.players.delete('gone');
    const wrong = takeRead(bw, ['a', 'b', 'gone'], { version: 5, value: [at('a', 30, 1), at('b', 20, 3)] });
    expect(wrong.changed.map((w) => w.playerId)).toEqual(['b']);
    expect(wrong.drift).toBe(1);
  });

  it('replays the events heard while the read was out onto what it returned', () => {
    const bw = watching('ORDINAL', []);
    for (const id of ['a', 'b']) bw.players.set(id, newWatched(id));
    bw.heard = [event(3, [['x', null, 25, 2]]), event(4, [['b', 20, 35, 1]])];
    takeRead(bw, ['a', 'b'], { version: 3, value: [at('a', 30, 1), at('b', 20, 3)] });
    expect(ranks(bw)).toEqual({ a: 2, b: 1 }); // version 3 already in the read; version 4 replayed
    expect(bw.fresh.size).toBe(2); // read ahead of the events applied: they must not move a and b again
  });

  it('notifies listeners of an entry once, and again only when it changed', () => {
    const bw = watching('ORDINAL', [['a', 30, 1]]);
    const a = bw.players.get('a')!;
    const heard: Array<number | undefined> = [];
    a.listeners.add((e) => heard.push(e?.rank));
    notify(bw, a);
    notify(bw, a);
    applyEvent(bw, event(2, [['x', null, 40, 1]]), new Set(), new Set());
    notify(bw, a);
    expect(heard).toEqual([1, 2]);
  });
});
