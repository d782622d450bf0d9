import { describe, expect, it } from 'vitest';
import {
  boardExpireAt,
  checkPeriodsPage,
  isBoardExpired,
  membersOnLiveBoards,
  requestedBoard,
  seasonBoard,
} from '../../src/domain/board.js';
import type { Season, Window } from '../../src/domain/season.js';
import { utc } from './helpers.js';

const season = { startsAt: utc('2026-01-01T00:00:00Z'), endsAt: utc('2026-03-01T00:00:00Z') } as Season;
const sec = (iso: string) => utc(iso).getTime() / 1000;

describe('boardExpireAt', () => {
  it.each([
    ['SEASON', '', 3600, 0],
    ['DAY', '2026-01-05', 0, sec('2026-01-06T00:00:00Z')],
    ['DAY', '2026-01-05', 3600, sec('2026-01-06T01:00:00Z')],
    // ISO week 2 of 2026 is Monday 5 .. Sunday 11 January.
    ['WEEK', '2026-W02', 60, sec('2026-01-12T00:01:00Z')],
  ] as const)('%s %s with a TTL of %d s → %d', (window: Window, period, ttl, expected) => {
    expect(boardExpireAt({ season, window, period }, ttl)).toBe(expected);
  });
});

describe('seasonBoard', () => {
  it('names the SEASON board of a season, or of a bare season id', () => {
    expect(seasonBoard(season)).toEqual({ season, window: 'SEASON', period: '' });
    expect(seasonBoard({ id: 7 })).toEqual({ season: { id: 7 }, window: 'SEASON', period: '' });
  });
});

describe('isBoardExpired', () => {
  const at = 1_800_000_000;
  it.each([
    [0, Number.MAX_SAFE_INTEGER, 0, false],
    [at, at * 1000 - 1, 0, false],
    [at, at * 1000, 0, true],
    [at, at * 1000 + 1, 0, true],
    [at, at * 1000 - 60_000, 60_000, true],
    [at, at * 1000 - 60_001, 60_000, false],
  ])('expiring at %d, at %d ms with a margin of %d ms → %s', (expireAt, nowMs, marginMs, expected) => {
    expect(isBoardExpired(expireAt, nowMs, marginMs)).toBe(expected);
  });
});

describe('membersOnLiveBoards', () => {
  const boards = [
    { window: 'SEASON', period: '', members: 100 },
    { window: 'DAY', period: '2026-01-05', members: 10 },
    { window: 'WEEK', period: '2026-W02', members: 1 },
  ] as const;
  it.each([
    ['2026-01-05T12:00:00Z', 0, 111],
    // The DAY board's key expires at the end of its day (TTL 0), the WEEK board's a week later.
    ['2026-01-06T00:00:00Z', 0, 101],
    ['2026-01-06T00:00:00Z', 3600, 111],
    ['2026-01-12T00:00:00Z', 0, 100],
    ['2026-12-31T00:00:00Z', 0, 100],
  ])('at %s with a TTL of %d s → %d', (now, ttl, expected) => {
    expect(membersOnLiveBoards(season, boards, ttl, utc(now).getTime())).toBe(expected);
  });
  it('counts nothing on no boards', () => {
    expect(membersOnLiveBoards(season, [], 0, 0)).toBe(0);
  });
});

describe('requestedBoard: which board a client may read', () => {
  const season = {
    id: 1,
    startsAt: utc('2026-01-05T00:00:00Z'),
    endsAt: utc('2026-02-02T00:00:00Z'),
  } as Season;
  const now = utc('2026-01-14T12:00:00Z');
  it.each([
    ['SEASON, no at', 'SEASON', null, { period: '', periodStart: '2026-01-05T00:00:00.000Z' }],
    ['DAY, no at: today', 'DAY', null, { period: '2026-01-14', periodStart: '2026-01-14T00:00:00.000Z' }],
    ['DAY of yesterday', 'DAY', '2026-01-13T08:00:00Z', { period: '2026-01-13' }],
    ['DAY of tomorrow (one period ahead)', 'DAY', '2026-01-15T08:00:00Z', { period: '2026-01-15' }],
    ['DAY two periods ahead', 'DAY', '2026-01-16T08:00:00Z', 'BAD_USER_INPUT'],
    ['DAY before the season', 'DAY', '2026-01-04T08:00:00Z', 'BAD_USER_INPUT'],
    ['WEEK of the season start', 'WEEK', '2026-01-06T00:00:00Z', { period: '2026-W02' }],
    ['WEEK after the season', 'WEEK', '2026-02-03T00:00:00Z', 'BAD_USER_INPUT'],
    ['SEASON at any instant', 'SEASON', '2030-01-01T00:00:00Z', { period: '' }],
  ] as const)('%s', (_name, window, at, expected) => {
    const read = () => requestedBoard(season, window as Window, at === null ? null : utc(at), now);
    if (typeof expected === 'string') {
      expect(read).toThrow(expect.objectContaining({ code: expected }) as Error);
      return;
    }
    const board = read();
    expect(board.period).toBe(expected.period);
    if ('periodStart' in expected) expect(board.periodStart.toISOString()).toBe(expected.periodStart);
  });
});

describe('checkPeriodsPage', () => {
  it.each([
    ['DAY', 1, null, undefined],
    ['DAY', 100, '2026-01-13', undefined],
    ['WEEK', 30, '2026-W02', undefined],
    ['DAY', 0, null, 'first'],
    ['DAY', 101, null, 'first'],
    ['DAY', 1.5, null, 'first'],
    ['DAY', 5, '2026-W02', 'before'],
    ['WEEK', 5, '2026-01-13', 'before'],
    ['CUSTOM', 5, '2026-01-01T06:00', undefined],
    ['CUSTOM', 5, '2026-01-01T05:00', 'before'],
    ['CUSTOM', 5, '2026-01-01', 'before'],
  ] as const)('%s first=%s before=%s → %s', (window, first, before, field) => {
    const check = () => checkPeriodsPage({ ...season, periodHours: 6 }, window, first, before);
    if (field === undefined) expect(check).not.toThrow();
    else expect(check).toThrow(expect.objectContaining({ code: 'BAD_USER_INPUT', field }) as Error);
  });
});
