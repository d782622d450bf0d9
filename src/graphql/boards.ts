// A season's boards in the contract (docs/design.md#boards): what CreateSeasonInput.boards
// declares and Season.boards (season.ts) lists. Reads name a board with a `board` argument (leaderboard.ts,
// subscriptions.ts).
import { MAX_KEY_BITS, MAX_KEYS } from '../domain/board-keys.js';
import { boardName, windowsOf, type BoardKey, type Season } from '../domain/season.js';
import { MAX_BOARDS } from '../service/seasons.js';
import { builder } from './builder.js';
import { RankStyleEnum, ScoringModeEnum, SortOrderEnum, WindowEnum } from './scalars.js';

const KeyAggregateEnum = builder.enumType('KeyAggregate', {
  description: "How one key of a multi-key board combines a player's results (docs/design.md#per-key-aggregates).",
  values: {
    BEST: { description: 'the best value in the key’s order (the default)' },
    SUM: { description: 'the total of their results (DESC); max is the largest total it tells apart' },
    MIN: { description: 'the least value: BEST on an ASC key (as input; read back as BEST)' },
    MAX: { description: 'the greatest value: BEST on a DESC key (as input; read back as BEST)' },
  },
});

const BoardKeyRef = builder.objectRef<BoardKey>('BoardKey').implement({
  description: 'One key of a multi-key board: a stat, its direction, its range 0..max and how it combines results.',
  fields: (t) => ({
    stat: t.exposeString('stat'),
    order: t.expose('order', { type: SortOrderEnum }),
    max: t.exposeInt('max'),
    aggregate: t.field({ type: KeyAggregateEnum, resolve: (k) => k.aggregate ?? 'BEST' }),
  }),
});

export const BoardRef = builder.objectRef<Season>('Board').implement({
  description: 'One board of a season: the stat or keys it ranks, and its own rules and windows.',
  fields: (t) => ({
    name: t.string({ resolve: boardName }),
    stat: t.string({
      nullable: true,
      description: 'the stat it ranks (a result’s points are the stat points); null on a multi-key board',
      resolve: (b) => (b.keys ? null : (b.stat ?? 'points')),
    }),
    keys: t.field({
      type: [BoardKeyRef],
      description: 'the keys of a multi-key board, most significant first, then who reached them first; [] otherwise',
      resolve: (b) => [...(b.keys ?? [])],
    }),
    scoring: t.expose('scoring', { type: ScoringModeEnum }),
    order: t.expose('order', { type: SortOrderEnum }),
    rankStyle: t.expose('rankStyle', { type: RankStyleEnum }),
    maxValue: t.int({
      description: "a stat's range is 0..maxValue (a multi-key board: its packed points' largest value)",
      resolve: (b) => b.maxPointsPerMatch,
    }),
    windows: t.field({ type: [WindowEnum], resolve: (b) => [...windowsOf(b)] }),
    resetOffsetMinutes: t.int({ resolve: (b) => b.resetOffsetMinutes ?? 0 }),
    periodHours: t.int({
      nullable: true,
      description: 'hours of each CUSTOM period, from the season start; null: no CUSTOM window',
      resolve: (b) => b.periodHours ?? null,
    }),
    shards: t.int({ resolve: (b) => b.shards?.tags.length ?? 1 }),
  }),
});

const BoardKeyInput = builder.inputType('BoardKeyInput', {
  fields: (t) => ({
    stat: t.string({ required: true }),
    order: t.field({ type: SortOrderEnum, required: false, description: 'default DESC (ASC with MIN)' }),
    max: t.int({
      required: true,
      description: `its range is 0..max; the keys of a board take at most ${MAX_KEY_BITS} bits together`,
    }),
    aggregate: t.field({ type: KeyAggregateEnum, required: false, description: 'default BEST' }),
  }),
});

export const BoardInput = builder.inputType('BoardInput', {
  description: `One of 1..${MAX_BOARDS} boards of a season; unset rules are the season's.`,
  fields: (t) => ({
    name: t.string({ required: true, description: 'a-z, 0-9 and _, starting with a letter, at most 32' }),
    stat: t.string({ required: false, description: 'the stat it ranks (default: its name); or keys' }),
    keys: t.field({
      type: [BoardKeyInput],
      required: false,
      description: `2..${MAX_KEYS} stats it ranks by, most significant first, each its own order and aggregate`,
    }),
    scoring: t.field({ type: ScoringModeEnum, required: false }),
    order: t.field({ type: SortOrderEnum, required: false }),
    rankStyle: t.field({ type: RankStyleEnum, required: false }),
    maxValue: t.int({ required: false, description: "the stat's range is 0..maxValue (required with stat)" }),
    timeUnitSeconds: t.int({ required: false, description: 'tie-break clock resolution (default: the scoring’s)' }),
    windows: t.field({ type: [WindowEnum], required: false }),
    resetOffsetMinutes: t.int({ required: false }),
    periodHours: t.int({ required: false, description: "hours of each CUSTOM period (default: the season's)" }),
    shardBounds: t.intList({ required: false, description: 'score-range shards of its boards (docs/scale-out.md)' }),
  }),
});
