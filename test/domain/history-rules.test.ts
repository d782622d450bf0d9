// The rules of history's partitions, retention and rank snapshots (domain/partitions.ts,
// domain/archive.ts, domain/rank-history.ts).
import { describe, expect, it } from 'vitest';
import { archiveDue, claimsKeptFrom } from '../../src/domain/archive.js';
import { partitionsAhead } from '../../src/domain/partitions.js';
import { rankDelta, snapshotDue, unpackRank } from '../../src/domain/rank-history.js';

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

describe('snapshotDue', () => {
  const active = (startsAt: string, endsAt: string, status = 'ACTIVE' as 'ACTIVE' | 'CLOSED' | 'SCHEDULED') => ({
    status,
    startsAt: new Date(startsAt),
    endsAt: new Date(endsAt),
  });
  const running = active('2026-11-01T10:00:00Z', '2027-01-01T00:00:00Z');
  it.each([
    ['no snapshot yet: last midnight', running, undefined, '2026-12-04T00:00:00.000Z'],
    ['yesterday’s taken: last midnight', running, '2026-12-03T00:00:00Z', '2026-12-04T00:00:00.000Z'],
    ['last midnight’s taken: none', running, '2026-12-04T00:00:00Z', null],
    [
      'down two days: only the last midnight, no guess at the one missed',
      running,
      '2026-12-01T00:00:00Z',
      '2026-12-04T00:00:00.000Z',
    ],
    [
      'started today: no midnight inside it yet',
      active('2026-12-04T09:00:00Z', '2027-01-01T00:00:00Z'),
      undefined,
      null,
    ],
    [
      'started at last midnight exactly: nothing ranked before it',
      active('2026-12-04T00:00:00Z', '2027-01-01T00:00:00Z'),
      undefined,
      null,
    ],
    [
      'ended at last midnight: its last snapshot',
      active('2026-11-01T00:00:00Z', '2026-12-04T00:00:00Z'),
      undefined,
      '2026-12-04T00:00:00.000Z',
    ],
    ['ended before last midnight: none', active('2026-11-01T00:00:00Z', '2026-12-03T23:00:00Z'), undefined, null],
    ['CLOSED: none', active('2026-11-01T00:00:00Z', '2027-01-01T00:00:00Z', 'CLOSED'), undefined, null],
    ['SCHEDULED: none', active('2026-11-01T00:00:00Z', '2027-01-01T00:00:00Z', 'SCHEDULED'), undefined, null],
  ])('%s', (_name, s, latest, due) => {
    expect(snapshotDue(s, at, latest ? new Date(latest) : undefined)?.toISOString() ?? null).toBe(due);
  });
});

describe('unpackRank', () => {
  it.each([
    ['rank 1', '00000001', 1],
    ['the largest uint32', 'ffffffff', 4_294_967_295],
    ['70,000', '00011170', 70_000],
    ['0: not ranked then', '00000000', null],
    ['no bytes: a slot past the snapshot’s end (first ranked later)', '', null],
    ['short', '0000', null],
  ])('%s', (_name, hex, rank) => {
    expect(unpackRank(Buffer.from(hex, 'hex'))).toBe(rank);
  });

  it('reads null for a missing chunk', () => {
    expect(unpackRank(null)).toBeNull();
    expect(unpackRank(undefined)).toBeNull();
  });
});

describe('rankDelta', () => {
  it.each([
    [20, 8, 12],
    [3, 5, -2],
    [7, 7, 0],
    [null, 5, null],
    [5, null, null],
  ])('then %s, now %s: %s', (then, now, delta) => {
    expect(rankDelta(then, now)).toBe(delta);
  });
});
