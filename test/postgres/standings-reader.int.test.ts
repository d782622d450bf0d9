import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SortOrder } from '../../src/domain/season.js';
import type { StandingsPage } from '../../src/domain/standings-page.js';
import { createPostgres } from '../../src/postgres/client.js';
import { createStandingsReader } from '../../src/postgres/standings-reader.js';
import { testConfig } from '../support/env.js';
import { createSeason, openServices, type Services } from '../support/services.js';

let s: Services;

beforeAll(() => {
  s = openServices(testConfig());
});

afterAll(async () => {
  await s?.close();
});

/** [window, period, player id, points, ms after the season start] */
type Row = [string, string, number | string, number, number];

/** A new season with these standings. */
async function seasonWith(order: SortOrder, rows: Row[]) {
  const season = await createSeason(s, { name: `standings reader ${order}`, order });
  const start = season.startsAt.getTime();
  await s.pg.sql`
    insert into standings (season_id, "window", period, player_id, points, achieved_at)
    select ${season.id}, w::board_window, p, id, pts, to_timestamp((${start}::int8 + ms) / 1000.0)
    from unnest(${rows.map((r) => r[0])}::text[], ${rows.map((r) => r[1])}::text[],
      ${rows.map((r) => String(r[2]))}::int8[], ${rows.map((r) => r[3])}::int8[], ${rows.map((r) => r[4])}::int8[])
      as t(w, p, id, pts, ms)`;
  return season;
}

/** Every page as `window period: player points ms-after-start, ...`. */
async function read(seasonId: number, order: SortOrder, pageSize: number, start: number) {
  const pages: string[] = [];
  for await (const p of createStandingsReader(s.pg.sql).seasonPages(seasonId, order, pageSize)) {
    pages.push(`${p.window} ${p.period}: ${rowsOf(p, start).join(', ')}`);
  }
  return pages;
}

const rowsOf = (p: StandingsPage, start: number) =>
  p.playerIds.map((id, i) => `${id} ${p.points[i]} ${p.achievedMs[i]! - start}`);

describe('the standings reader', () => {
  const rows: Row[] = [
    ['SEASON', '', 1, 50, 3_000],
    ['SEASON', '', 2, 70, 9_000],
    ['SEASON', '', 3, 50, 1_000], // ties 1 on points, earlier: ranks first among them
    ['SEASON', '', 4, 10, 2_500],
    ['DAY', "it's a \\ day", 5, 7, 1_234], // any period text reaches the statement as a literal
    ['DAY', "it's a \\ day", 6, 9, 1_999],
    ['WEEK', '2026-W02', 7, 1, 0],
  ];

  it('reads every board in key order, best first by points and then time, in pages of one board', async () => {
    const season = await seasonWith('DESC', rows);
    expect(await read(season.id, 'DESC', 2, season.startsAt.getTime())).toEqual([
      'SEASON : 2 70 9000, 3 50 1000',
      'SEASON : 1 50 3000, 4 10 2500',
      "DAY it's a \\ day: 6 9 1999, 5 7 1234",
      'WEEK 2026-W02: 7 1 0',
    ]);
  });

  it('reads fewer points first in an ASC season, and still the earlier time among equal points', async () => {
    const season = await seasonWith('ASC', rows);
    expect(await read(season.id, 'ASC', 3, season.startsAt.getTime())).toEqual([
      'SEASON : 4 10 2500, 3 50 1000, 1 50 3000',
      'SEASON : 2 70 9000',
      "DAY it's a \\ day: 5 7 1234, 6 9 1999",
      'WEEK 2026-W02: 7 1 0',
    ]);
  });

  it('floors times to the millisecond and keeps player ids beyond 2^53 exact', async () => {
    const season = await seasonWith('DESC', [['SEASON', '', '9007199254740993', 5, 0]]);
    await s.pg.sql`
      update standings set achieved_at = achieved_at + interval '1.999 milliseconds' where season_id = ${season.id}`;
    expect(await read(season.id, 'DESC', 10, season.startsAt.getTime())).toEqual(['SEASON : 9007199254740993 5 1']);
  });

  it('leaves its connection ready for the next statement, read to the end or left early', async () => {
    // Boards of more rows than the stream buffers: the socket gets paused and resumed.
    const big = (window: string, period: string) =>
      Array.from({ length: 30_000 }, (_, i): Row => [window, period, i + 1, i, 0]);
    const season = await seasonWith('DESC', [...big('SEASON', ''), ...big('WEEK', '2026-W02')]);
    // One connection in the pool: the one the COPY used must have come back, out of COPY mode.
    const one = createPostgres(s.config.databaseUrl, 1);
    try {
      const reader = createStandingsReader(one.sql);
      let n = 0;
      for await (const p of reader.seasonPages(season.id, 'DESC', 1_000)) {
        n += p.playerIds.length;
        await new Promise((r) => setTimeout(r, 5)); // a consumer slower than PostgreSQL, like a rebuild
      }
      expect(n).toBe(60_000);
      expect(await one.sql`select 1 as ok`).toEqual([{ ok: 1 }]);

      for await (const p of reader.seasonPages(season.id, 'DESC', 100)) {
        expect(p.playerIds.slice(0, 2)).toEqual(['30000', '29999']);
        break;
      }
      expect(await one.sql`select 1 as ok`).toEqual([{ ok: 1 }]);
    } finally {
      await one.close();
    }
  });
});
