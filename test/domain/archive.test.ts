import { describe, expect, it } from 'vitest';
import { archiveDue, claimsKeptFrom } from '../../src/domain/archive.js';

const at = new Date('2026-12-04T18:00:00Z');
const season = (id: number, startsAt: string, endsAt: string, finalizedAt: string | null = null) => ({
  id,
  startsAt: new Date(startsAt),
  endsAt: new Date(endsAt),
  finalizedAt: finalizedAt ? new Date(finalizedAt) : null,
});

describe('archiveDue', () => {
  const finalized = (id: number, at: string | null) => ({ id, finalizedAt: at ? new Date(at) : null });
  it.each([
    ['finalized 31 days ago: due', finalized(1, '2026-11-03T18:00:00Z'), 30, [1]],
    ['finalized exactly 30 days ago: due', finalized(2, '2026-11-04T18:00:00Z'), 30, [2]],
    ['finalized 29 days ago: not yet', finalized(3, '2026-11-05T18:00:00Z'), 30, []],
    ['not finalized: never', finalized(4, null), 30, []],
    ['archiving off (0 days): never', finalized(5, '2020-01-01T00:00:00Z'), 0, []],
  ])('%s', (_name, s, days, ids) => {
    expect(archiveDue([s], at, days)).toEqual(ids);
  });
});

describe('claimsKeptFrom', () => {
  it.each([
    ['no open season: the last 30 days', [], 30, '2026-11-04'],
    [
      'an open season started 40 days ago: from its start',
      [season(1, '2026-10-25T13:00:00Z', '2027-01-01T00:00:00Z')],
      30,
      '2026-10-25',
    ],
    [
      'an open season started yesterday: the last 30 days',
      [season(2, '2026-12-03T00:00:00Z', '2027-01-01T00:00:00Z')],
      30,
      '2026-11-04',
    ],
    [
      'a finalized season does not hold claims back',
      [season(3, '2026-01-01T00:00:00Z', '2026-02-01T00:00:00Z', '2026-02-01T00:00:00Z')],
      30,
      '2026-11-04',
    ],
    ['retention off: keep everything', [], 0, null],
  ])('%s', (_name, seasons, days, day) => {
    expect(claimsKeptFrom(seasons, at, days)).toBe(day);
  });
});
