import { describe, expect, it } from 'vitest';
import { boardExpireAt, isBoardExpired } from '../../src/domain/board.js';
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
