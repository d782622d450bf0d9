// `players remove|block|unblock|hide|unhide` and `export` as operators run them: real child processes.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import type { AcceptedResult } from '../../src/domain/board-deltas.js';
import type { Season } from '../../src/domain/season.js';
import type { MatchResultMessage } from '../../src/domain/result-message.js';
import { createResultsStore } from '../../src/postgres/results-store.js';
import { createBoardWriter } from '../../src/redis/board-writer.js';
import { applyResults } from '../../src/service/apply-results.js';
import { expectBoardsMatchOracle } from '../support/assert-boards.js';
import { testConfig, testEnv } from '../support/env.js';
import { generateResults } from '../support/generate.js';
import { createSeason, openServices, type Services } from '../support/services.js';

const CHEATER = '820000000666';
let s: Services;

// A block cache of 0: the removal's settle pass runs 1 s after it.
const cli = (...args: string[]) => runCli(testEnv({ BLOCKED_PLAYERS_CACHE_MS: '0' }), ...args);

beforeAll(() => {
  s = openServices(testConfig());
});
afterAll(async () => {
  await s?.close();
});

async function seasonWithCheater(): Promise<{
  season: Season;
  honest: MatchResultMessage[];
  cheats: MatchResultMessage[];
}> {
  const season = await createSeason(s, { name: 'cli cheater', maxPointsPerMatch: 1_000 });
  const honest = generateResults(season, { results: 600, players: 100, seed: 77, maxPoints: 50 });
  const cheats = honest
    .slice(0, 15)
    .filter((_, i) => i % 5 === 0)
    .map((m, i) => ({ ...m, playerId: CHEATER, points: 800 + i }));
  const accepted: AcceptedResult[] = [...honest, ...cheats].map((m, i) => ({
    ...m,
    endedAt: new Date(m.endedAt),
    partition: 0,
    offset: String(i),
  }));
  await applyResults(
    {
      store: createResultsStore(s.pg.sql),
      boards: createBoardWriter(s.redis, s.config.windowTtlSeconds),
      seasonOf: () => season,
      now: Date.now,
    },
    accepted,
  );
  return { season, honest, cheats };
}

const asOracle = (ms: readonly MatchResultMessage[]) => ms.map((m) => ({ ...m, endedAt: new Date(m.endedAt) }));

describe('players remove, block, unblock', () => {
  it('removes one match, then everything with --block, recomputing every board, and audits as cli:<user>', async () => {
    const { season, honest, cheats } = await seasonWithCheater();
    const one = await cli(
      'players',
      'remove',
      '--season',
      String(season.id),
      '--player',
      CHEATER,
      '--match',
      cheats[2]!.matchId,
      '--reason',
      'aimbot',
    );
    expect(one.stderr).toBe('');
    expect(one.code).toBe(0);
    expect(one.stdout).toContain(
      `removed 1 result(s) of player ${CHEATER} from season ${season.id} (match ${cheats[2]!.matchId})`,
    );
    expect(one.stdout).toMatch(/^ {2}SEASON +801 points, reached /m);
    await expectBoardsMatchOracle(s, season, asOracle([...honest, ...cheats.slice(0, 2)]));

    const all = await cli(
      'players',
      'remove',
      '--season',
      String(season.id),
      '--player',
      CHEATER,
      '--reason',
      'aimbot',
      '--block',
    );
    expect(all.code).toBe(0);
    expect(all.stdout.split('\n')[0]).toMatch(
      /removed 2 result\(s\) .*\(all results\); audit #\d+; player blocked in this season$/,
    );
    expect(all.stdout).toMatch(/^ {2}SEASON +off the board$/m);
    expect(all.stdout).toContain('settled: nothing raced the removal');
    await expectBoardsMatchOracle(s, season, asOracle(honest));
    const audit = await s.pg.sql`select actor, action from admin_audit where season_id = ${season.id} order by id`;
    expect(audit.map((r) => r.action)).toEqual(['remove_results', 'remove_results', 'block_player']);
    expect(audit.every((r) => /^cli:.+/.test(r.actor))).toBe(true);
  });

  it('blocks and unblocks, saying when nothing changed', async () => {
    const season = await createSeason(s, { name: 'cli block' });
    const args = ['--season', String(season.id), '--player', '820000000001', '--reason', 'smurf account'];
    expect((await cli('players', 'block', ...args)).stdout).toMatch(
      /^blocked: player 820000000001 in season \d+; audit #\d+\n$/,
    );
    expect((await cli('players', 'block', ...args)).stdout).toMatch(/^already blocked:/);
    expect((await cli('players', 'unblock', ...args)).stdout).toMatch(/^unblocked:/);
    expect(await s.pg.sql`select 1 from blocked_players where season_id = ${season.id}`).toHaveLength(0);
  });

  it('hides a player from every board pending review and shows them again, exactly', async () => {
    const { season, honest, cheats } = await seasonWithCheater();
    const args = ['--season', String(season.id), '--player', CHEATER, '--reason', 'pending review'];
    const hidden = await cli('players', 'hide', ...args);
    expect(hidden.code).toBe(0);
    // SEASON and the DAY and WEEK periods the cheats fell in.
    expect(hidden.stdout).toMatch(
      new RegExp(
        `^hidden from the boards: player ${CHEATER} in season ${season.id} \\(\\d+ board entries changed\\); audit #\\d+\n$`,
      ),
    );
    await expectBoardsMatchOracle(s, season, asOracle(honest));
    expect((await cli('players', 'hide', ...args)).stdout).toMatch(
      /^already hidden from the boards: .*\(0 board entries changed\)/,
    );
    const shown = await cli('players', 'unhide', ...args);
    expect(shown.stdout).toMatch(/^shown on the boards: /);
    await expectBoardsMatchOracle(s, season, asOracle([...honest, ...cheats]));
    const audit = await s.pg.sql`select action from admin_audit where season_id = ${season.id} order by id`;
    expect(audit.map((r) => r.action)).toEqual(['hide_player', 'hide_player', 'unhide_player']);
  });

  it.for<[string, string[], number, string]>([
    ['no --reason', ['players', 'remove', '--season', '1', '--player', '5'], 2, '--reason is required'],
    [
      'a malformed --player',
      ['players', 'remove', '--season', '1', '--player', '5x', '--reason', 'x'],
      2,
      'playerId must be a decimal integer',
    ],
    [
      'a malformed --match',
      ['players', 'remove', '--season', '1', '--player', '5', '--match', 'm1', '--reason', 'x'],
      2,
      'matchId must be a UUID',
    ],
    [
      'an unknown season',
      ['players', 'remove', '--season', '2000000000', '--player', '5', '--reason', 'x'],
      1,
      'season 2000000000 does not exist',
    ],
  ])('refuses %s with a clear message and exit code', async ([, args, code, message], { expect }) => {
    const run = await cli(...args);
    expect(run.code).toBe(code);
    expect(run.stderr).toContain(message);
    expect(run.stdout).toBe('');
  });
});

/** A strict RFC 4180 reader, independent of the exporter: records of fields, CRLF line ends. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === '"') {
      for (i++; !(text[i] === '"' && text[i + 1] !== '"'); i++) {
        if (i >= text.length) throw new Error('unterminated quote');
        if (text[i] === '"') i++;
        field += text[i];
      }
      i++;
    } else if (text[i] === ',') {
      record.push(field);
      field = '';
      i++;
    } else if (text.startsWith('\r\n', i)) {
      record.push(field);
      records.push(record);
      field = '';
      record = [];
      i += 2;
    } else {
      field += text[i];
      i++;
    }
  }
  if (field !== '' || record.length > 0) throw new Error('last record not ended by CRLF');
  return records;
}

describe('export', () => {
  const names: Record<string, string | null> = {
    820000000101: 'Doe, Jane',
    820000000102: 'The "Ace"',
    820000000103: 'two\nlines',
    820000000104: null,
  };
  let season: Season;

  beforeAll(async () => {
    season = await createSeason(s, { name: 'cli export' });
    await s.pg.sql`insert into players (id, display_name) values
      (820000000101, ${names[820000000101]!}), (820000000102, ${names[820000000102]!}), (820000000103, ${names[820000000103]!})
      on conflict (id) do update set display_name = excluded.display_name`;
    const at = season.startsAt.toISOString();
    await s.pg
      .sql`insert into season_final_standings (season_id, "window", period, player_id, position, rank, points, achieved_at) values
      (${season.id}, 'SEASON', '', 820000000101, 0, 1, 90, ${at}), (${season.id}, 'SEASON', '', 820000000102, 1, 2, 80, ${at}),
      (${season.id}, 'SEASON', '', 820000000103, 2, 2, 80, ${at}), (${season.id}, 'SEASON', '', 820000000104, 3, 4, 7, ${at}),
      (${season.id}, 'DAY', '2026-03-02', 820000000104, 0, 1, 7, ${at}), (${season.id}, 'WEEK', '2026-W10', 820000000104, 0, 1, 7, ${at})`;
    // Enough rows for several cursor pages (5,000 a page).
    await s.pg
      .sql`insert into season_final_standings (season_id, "window", period, player_id, position, rank, points, achieved_at)
      select ${season.id}, 'DAY', '2026-03-03', 830000000000 + n, n - 1, n, 20000 - n, ${at} from generate_series(1, 12000) n`;
    await s.pg.sql`update seasons set status = 'CLOSED', finalized_at = now() where id = ${season.id}`;
  });

  it('writes RFC 4180 CSV to stdout, board by board, best first, names quoted', async () => {
    const run = await cli('export', '--season', String(season.id));
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(`exported 12006 rows of season ${season.id}\n`);
    const records = parseCsv(run.stdout);
    expect(records[0]).toEqual(['rank', 'player_id', 'display_name', 'points', 'achieved_at', 'window', 'period']);
    const at = season.startsAt.toISOString();
    expect(records.slice(1, 5)).toEqual([
      ['1', '820000000101', 'Doe, Jane', '90', at, 'SEASON', ''],
      ['2', '820000000102', 'The "Ace"', '80', at, 'SEASON', ''],
      ['2', '820000000103', 'two\nlines', '80', at, 'SEASON', ''],
      ['4', '820000000104', '', '7', at, 'SEASON', ''],
    ]);
    expect(records.slice(5, 7).map((r) => [r[5], r[6]])).toEqual([
      ['DAY', '2026-03-02'],
      ['DAY', '2026-03-03'],
    ]);
    expect(records.at(-1)).toEqual(['1', '820000000104', '', '7', at, 'WEEK', '2026-W10']);
    expect(records.filter((r) => r[6] === '2026-03-03').map((r) => Number(r[0]))).toEqual(
      Array.from({ length: 12000 }, (_, i) => i + 1),
    );
  });

  it('writes NDJSON of one period to --out, and only a complete file', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'ladder-export-')), 'w10.ndjson');
    const run = await cli(
      'export',
      '--season',
      String(season.id),
      '--window',
      'WEEK',
      '--period',
      '2026-W10',
      '--format',
      'ndjson',
      '--out',
      out,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`exported 1 rows of season ${season.id} to ${out}\n`);
    expect(
      readFileSync(out, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    ).toEqual([
      {
        rank: 1,
        player_id: '820000000104',
        display_name: null,
        points: 7,
        achieved_at: season.startsAt.toISOString(),
        window: 'WEEK',
        period: '2026-W10',
      },
    ]);
    expect(existsSync(`${out}.partial`)).toBe(false);
  });

  it('exits 1 with a clear message for a season not finalized yet, leaving no file', async () => {
    const open = await createSeason(s, { name: 'cli export open' });
    const out = join(mkdtempSync(join(tmpdir(), 'ladder-export-')), 'open.csv');
    const run = await cli('export', '--season', String(open.id), '--out', out);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`season ${open.id} is not finalized yet`);
    expect(run.stdout).toBe('');
    expect(existsSync(out) || existsSync(`${out}.partial`)).toBe(false);
  });

  it.for<[string, string[], number, string]>([
    ['an unknown season', ['--season', '2000000000'], 1, 'season 2000000000 does not exist'],
    ['an unknown format', ['--season', '1', '--format', 'xlsx'], 2, '--format must be csv or ndjson'],
    [
      'an impossible day',
      ['--season', '1', '--window', 'DAY', '--period', '2026-02-30'],
      2,
      'period must be yyyy-mm-dd',
    ],
  ])('refuses %s with a clear message and exit code', async ([, args, code, message], { expect }) => {
    const run = await cli('export', ...args);
    expect(run.code).toBe(code);
    expect(run.stderr).toContain(message);
  });
});
