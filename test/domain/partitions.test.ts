import { describe, expect, it } from 'vitest';
import { partitionsAhead } from '../../src/domain/partitions.js';

const at = new Date('2026-12-04T18:00:00Z');
const season = (id: number, startsAt: string, endsAt: string, finalizedAt: string | null = null) => ({
  id,
  startsAt: new Date(startsAt),
  endsAt: new Date(endsAt),
  finalizedAt: finalizedAt ? new Date(finalizedAt) : null,
});

describe('partitionsAhead', () => {
  it.each([
    [
      'a season running through the horizon gets today and two days ahead',
      season(1, '2026-11-01T00:00:00Z', '2027-01-01T00:00:00Z'),
      ['2026-12-04', '2026-12-05', '2026-12-06'],
    ],
    [
      'a season ending tomorrow at 06:00 gets today and tomorrow',
      season(2, '2026-11-01T00:00:00Z', '2026-12-05T06:00:00Z'),
      ['2026-12-04', '2026-12-05'],
    ],
    [
      'a season ending at midnight tonight gets only today',
      season(3, '2026-11-01T00:00:00Z', '2026-12-05T00:00:00Z'),
      ['2026-12-04'],
    ],
    [
      'a season starting the day after tomorrow gets that day',
      season(4, '2026-12-06T12:00:00Z', '2027-01-01T00:00:00Z'),
      ['2026-12-06'],
    ],
    ['a season starting in a week gets nothing yet', season(5, '2026-12-11T00:00:00Z', '2027-01-01T00:00:00Z'), []],
    [
      'a finalized season gets nothing',
      season(6, '2026-11-01T00:00:00Z', '2027-01-01T00:00:00Z', '2026-12-01T00:00:00Z'),
      [],
    ],
  ])('%s', (_name, s, days) => {
    expect(partitionsAhead([s], at).results).toEqual(days.map((day) => ({ seasonId: s.id, day })));
  });

  it('has claims partitions from today through the day after the last results day', () => {
    expect(partitionsAhead([], at).claims).toEqual(['2026-12-04', '2026-12-05', '2026-12-06', '2026-12-07']);
  });

  it('counts days in UTC, whatever the hour', () => {
    expect(partitionsAhead([], new Date('2026-12-04T23:59:59.999Z'), 0).claims).toEqual(['2026-12-04', '2026-12-05']);
    expect(partitionsAhead([], new Date('2026-12-05T00:00:00.000Z'), 0).claims).toEqual(['2026-12-05', '2026-12-06']);
  });
});
