import { describe, expect, it } from 'vitest';
import { boardExpireAt, isBoardExpired, membersOnLiveBoards } from '../../src/domain/board.js';
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
    expect(boardExpireAt(season, window, period, ttl)).toBe(expected);
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
