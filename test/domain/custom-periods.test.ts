// CUSTOM periods beyond their math (windows.test.ts): who may declare them, their Redis keys, their
// expiry and live boards, and the periods a reward rule of the window grants.
import { describe, expect, it } from 'vitest';
import { boardExpireAt, boardAt, liveBoards } from '../../src/domain/board.js';
import { boardsOf } from '../../src/domain/board-deltas.js';
import { endedPeriods } from '../../src/domain/rewards.js';
import { turnoverOf, validateSeasonDefinition, type Season, type SeasonDefinition } from '../../src/domain/season.js';
import {
  boardKey,
  scopeBoardOfKey,
  shardBoardKey,
  windowBoardOfKey,
  windowBoardOfShardKey,
} from '../../src/redis/keys.js';
import { utc } from './helpers.js';

const HOUR = 3_600_000;
const definition: SeasonDefinition = {
  name: 'six-hourly',
  startsAt: utc('2026-12-01T04:00:00.000Z'),
  endsAt: utc('2026-12-11T04:00:00.000Z'),
  scoring: 'BEST',
  order: 'DESC',
  rankStyle: 'ORDINAL',
  maxPointsPerMatch: 1000,
  windows: ['SEASON', 'CUSTOM'],
  periodHours: 6,
};
const season = { ...definition, id: 7, status: 'ACTIVE', split: validateSeasonDefinition(definition) } as Season;

describe('declaring CUSTOM', () => {
  it.each<[string, Partial<SeasonDefinition>, string | undefined]>([
    ['CUSTOM with periodHours', {}, undefined],
    ['CUSTOM with periodHours 1 and 8784', { periodHours: 8784 }, undefined],
    ['CUSTOM without periodHours', { periodHours: undefined }, 'periodHours'],
    ['periodHours without CUSTOM', { windows: ['SEASON', 'DAY'] }, 'periodHours'],
    ['periodHours with the default windows', { windows: undefined }, 'periodHours'],
    ['periodHours 0', { periodHours: 0 }, 'periodHours'],
    ['periodHours 8785', { periodHours: 8785 }, 'periodHours'],
    ['periodHours 1.5', { periodHours: 1.5 }, 'periodHours'],
  ])('%s → %s', (_name, change, field) => {
    const check = () => validateSeasonDefinition({ ...definition, ...change });
    if (field === undefined) expect(check).not.toThrow();
    else expect(check).toThrow(expect.objectContaining({ code: 'BAD_USER_INPUT', field }) as Error);
  });
});

describe('a CUSTOM board', () => {
  const board = boardAt(season, 'CUSTOM', utc('2026-12-02T11:00:00.000Z'));

  it('is the span of the instant, from the season start', () => {
    expect(board).toMatchObject({ period: '2026-12-02T10:00', periodStart: utc('2026-12-02T10:00:00.000Z') });
    expect(boardsOf({ seasonId: 7, playerId: '1', endedAt: utc('2026-12-02T11:00:00.000Z') }, season)).toEqual([
      { seasonId: 7, window: 'SEASON', period: '', playerId: '1' },
      { seasonId: 7, window: 'CUSTOM', period: '2026-12-02T10:00', playerId: '1' },
    ]);
  });

  it('has Redis keys that name it back, whole, scoped and sharded', () => {
    expect(boardKey(board)).toBe('lb:{s7}:c:2026-12-02T10:00');
    expect(windowBoardOfKey(7, boardKey(board))).toEqual({ window: 'CUSTOM', period: '2026-12-02T10:00' });
    expect(windowBoardOfKey(7, `${boardKey(board)}:rebuild`)).toBeUndefined();
    expect(scopeBoardOfKey(7, boardKey({ ...board, scope: 'r:BR' }))).toEqual({
      window: 'CUSTOM',
      period: '2026-12-02T10:00',
      scope: 'r:BR',
    });
    const shard = shardBoardKey('s7.1', 'CUSTOM', board.period);
    expect(windowBoardOfShardKey(['s7.1'], shard)).toEqual({ window: 'CUSTOM', period: '2026-12-02T10:00' });
  });

  it('expires its TTL after its span ends; live boards are the spans back to the first expired one', () => {
    expect(boardExpireAt(board, 60)).toBe(Date.parse('2026-12-02T16:00:00.000Z') / 1000 + 60);
    const now = utc('2026-12-02T17:00:00.000Z').getTime();
    expect(liveBoards(season, 2 * 3600, now).map((b) => `${b.window}|${b.period}`)).toEqual([
      'SEASON|',
      'CUSTOM|2026-12-02T16:00',
      'CUSTOM|2026-12-02T10:00',
    ]);
  });

  it('grants rewards for the spans that ended, newest first', () => {
    const now = new Date(utc('2026-12-02T16:00:00.000Z').getTime() + HOUR);
    expect(endedPeriods(season, 'CUSTOM', now, HOUR, turnoverOf(season))).toEqual([
      '2026-12-02T10:00',
      '2026-12-02T04:00',
      '2026-12-01T22:00',
      '2026-12-01T16:00',
      '2026-12-01T10:00',
      '2026-12-01T04:00',
    ]);
  });
});
