import { describe, expect, it } from 'vitest';
import {
  csvField,
  exportFinalStandings,
  formatRows,
  parseExportFilter,
  type ExportRow,
} from '../../src/service/export-final-standings.js';
import type { Season } from '../../src/domain/season.js';
import { thrown } from '../domain/helpers.js';

const row = (displayName: string | null): ExportRow => ({
  rank: 1,
  playerId: '9007199254740993',
  displayName,
  points: '120',
  achievedAt: new Date('2026-03-02T10:00:00Z'),
  window: 'DAY',
  period: '2026-03-02',
});

describe('CSV per RFC 4180', () => {
  it.each<[string, string, string]>([
    ['a plain name as is', 'Ann', 'Ann'],
    ['a comma quoted', 'Doe, Jane', '"Doe, Jane"'],
    ['a quote doubled inside quotes', 'The "Ace"', '"The ""Ace"""'],
    ['a line break quoted', 'two\nlines', '"two\nlines"'],
    ['a carriage return quoted', 'cr\rhere', '"cr\rhere"'],
    ['an empty field empty', '', ''],
  ])('writes %s', (_name, value, expected) => {
    expect(csvField(value)).toBe(expected);
  });

  it('ends every record with CRLF and writes a missing name as an empty field', () => {
    expect(formatRows([row('Doe, "J"'), row(null)], 'csv')).toBe(
      '1,9007199254740993,"Doe, ""J""",120,2026-03-02T10:00:00.000Z,DAY,2026-03-02\r\n' +
        '1,9007199254740993,,120,2026-03-02T10:00:00.000Z,DAY,2026-03-02\r\n',
    );
  });

  it('writes NDJSON with ids as strings (above 2^53) and names as JSON escapes them', () => {
    const line = formatRows([row('a\n"b"')], 'ndjson');
    expect(line.endsWith('\n') && line.split('\n').length).toBe(2);
    expect(JSON.parse(line)).toEqual({
      rank: 1,
      player_id: '9007199254740993',
      display_name: 'a\n"b"',
      points: 120,
      achieved_at: '2026-03-02T10:00:00.000Z',
      window: 'DAY',
      period: '2026-03-02',
    });
  });
});

describe('export filters', () => {
  it.each<[string, string | undefined, string | undefined, ReturnType<typeof thrown>]>([
    ['no filter', undefined, undefined, 'no error'],
    ['a window', 'WEEK', undefined, 'no error'],
    ['a day', 'DAY', '2026-03-02', 'no error'],
    ['an unknown window', 'YEAR', undefined, { code: 'BAD_USER_INPUT', field: 'window' }],
    ['a month', 'MONTH', '2026-03', 'no error'],
    ['an impossible month', 'MONTH', '2026-13', { code: 'BAD_USER_INPUT', field: 'period' }],
    ['a period without a window', undefined, '2026-03-02', { code: 'BAD_USER_INPUT', field: 'period' }],
    ['a period of the SEASON window', 'SEASON', '2026', { code: 'BAD_USER_INPUT', field: 'period' }],
    ['an impossible day', 'DAY', '2026-02-30', { code: 'BAD_USER_INPUT', field: 'period' }],
    ['a day given for a week', 'WEEK', '2026-03-02', { code: 'BAD_USER_INPUT', field: 'period' }],
    ['a CUSTOM period', 'CUSTOM', '2026-03-02T06:00', 'no error'],
    ['a CUSTOM period without its minutes', 'CUSTOM', '2026-03-02T06', { code: 'BAD_USER_INPUT', field: 'period' }],
  ])('%s', (_name, window, period, expected) => {
    expect(thrown(() => parseExportFilter(window, period))).toEqual(expected);
  });
});

describe('exportFinalStandings', () => {
  const season = { id: 3, finalizedAt: null } as unknown as Season;
  const source = {
    async *pages() {
      yield [row('x')];
    },
  };

  it('refuses a season that is not finalized (CONFLICT) and an unknown one, writing nothing', async () => {
    const written: string[] = [];
    const write = async (c: string) => {
      written.push(c);
    };
    await expect(
      exportFinalStandings(
        { seasonById: async () => season, source },
        { seasonId: 3, filter: {}, format: 'csv' },
        write,
      ),
    ).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('not finalized yet') });
    await expect(
      exportFinalStandings(
        { seasonById: async () => undefined, source },
        { seasonId: 4, filter: {}, format: 'csv' },
        write,
      ),
    ).rejects.toMatchObject({ code: 'SEASON_NOT_FOUND' });
    expect(written).toEqual([]);
  });

  it('writes the header, then page after page, and counts rows', async () => {
    const written: string[] = [];
    const finalized = { ...season, finalizedAt: new Date() };
    const pages = {
      async *pages() {
        yield [row('a'), row('b')];
        yield [row('c')];
      },
    };
    const r = await exportFinalStandings(
      { seasonById: async () => finalized, source: pages },
      { seasonId: 3, filter: {}, format: 'csv' },
      async (c) => {
        written.push(c);
      },
    );
    expect(r).toEqual({ rows: 3 });
    expect(written[0]).toBe('rank,player_id,display_name,points,achieved_at,window,period\r\n');
    expect(written).toHaveLength(3);
  });
});
