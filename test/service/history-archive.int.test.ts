// Archiving a closed season's raw results and rank history: the CLI SIGKILLed midway drops
// nothing; run again, the archive is complete and verified, the partitions and rank history are
// gone, and loading the archive into a scratch schema gives back every row exactly.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHistoryArchive } from '../../src/postgres/history-archive.js';
import { createRankSnapshots } from '../../src/postgres/rank-snapshots.js';
import { runCli } from '../support/cli.js';
import { nodeArgsFor } from '../support/process.js';
import { createSeason, openServices, waitFor, type Services } from '../support/services.js';
import { testConfig, testEnv } from '../support/env.js';

const DAYS = 8;
const PER_DAY = 60_000;
const root = mkdtempSync(join(tmpdir(), 'ladder-archives-'));
const env = testEnv({ HISTORY_ARCHIVE_DIR: root });
let s: Services;

beforeAll(async () => {
  s = openServices(testConfig(env));
  await s.pg.sql`select 1`;
});
afterAll(async () => {
  await s?.close();
  rmSync(root, { recursive: true, force: true });
});

/** md5 of every row of `table` in key order, times in UTC: equal iff the rows are. */
async function fingerprint(table: string, seasonId: number): Promise<{ n: number; md5: string }> {
  const [r] = await s.pg.sql.unsafe<[{ n: number; md5: string }]>(`
    select count(*)::int as n, md5(string_agg(concat_ws('|', season_id, extract(epoch from ended_at), match_id,
      player_id, points, kafka_partition, kafka_offset, extract(epoch from ingested_at), metadata::text), ',' order by ended_at, match_id, player_id)) as md5
    from ${table} where season_id = ${seasonId}`);
  return r;
}

/** The season's rank history in `schema`: counts and md5s of its rows. */
async function rankFingerprint(schema: string, seasonId: number) {
  const [r] = await s.pg.sql.unsafe<[{ slots: number; chunks: number; slots_md5: string; chunks_md5: string }]>(`
    select (select count(*)::int from ${schema}.rank_slots where season_id = ${seasonId}) as slots,
      (select count(*)::int from ${schema}.rank_snapshots where season_id = ${seasonId}) as chunks,
      (select md5(string_agg(player_id || ':' || slot, ',' order by player_id)) from ${schema}.rank_slots where season_id = ${seasonId}) as slots_md5,
      (select md5(string_agg(concat_ws('|', extract(epoch from boundary), chunk, extract(epoch from taken_at), players, encode(ranks, 'hex')), ',' order by boundary, chunk))
         from ${schema}.rank_snapshots where season_id = ${seasonId}) as chunks_md5`);
  return r;
}

const attached = async (table: string) =>
  (await s.pg.sql`select 1 from pg_inherits where inhrelid = to_regclass(${table})`).length === 1;

describe('archiving a closed season’s raw results', () => {
  it('drops nothing when killed midway, then archives, drops and loads back every row', async () => {
    const season = await createSeason(s, { name: 'archived', daysAgo: 30 });
    const first = Math.floor(season.startsAt.getTime() / 86_400_000) * 86_400_000;
    for (let d = 0; d < DAYS; d++) {
      const day = new Date(first + d * 86_400_000).toISOString().slice(0, 10);
      await s.pg.sql`select ladder_results_partition(${season.id}, ${day}::date)`;
      await s.pg
        .sql`insert into match_results (season_id, ended_at, match_id, player_id, points, kafka_partition, kafka_offset, metadata)
        select ${season.id}, ${day}::date + i * interval '1 second', md5(${day} || (i / 4)::text)::uuid, 1 + i % 5000, i % 100, i % 6, i,
          -- Every third result has metadata with what CSV must quote: commas, quotes, a backslash, non-ASCII.
          case when i % 3 = 0 then jsonb_build_object('car', 'Ré "fast", ' || i, 'path', 'a\\b', 'laps', array[i, 2]) end
        from generate_series(0, ${PER_DAY - 1}) i`;
    }
    const before = await fingerprint('match_results', season.id);
    expect(before.n).toBe(DAYS * PER_DAY);
    // Two daily rank snapshots of 3,000 players, archived with the results.
    await s.pg.sql`insert into standings (season_id, "window", period, player_id, points, achieved_at)
      select ${season.id}, 'SEASON', '', p, p % 700, ${season.startsAt.toISOString()}::timestamptz + p * interval '1 second' from generate_series(1, 3000) p`;
    const snapshots = createRankSnapshots(s.pg.sql);
    for (const d of [1, 2]) await snapshots.take(season, new Date(first + d * 86_400_000));
    const ranksBefore = await rankFingerprint('public', season.id);
    expect(ranksBefore.slots).toBe(3000);
    // Not closed yet: refused, nothing written.
    const early = await runCli(env, 'history', 'archive', '--season', String(season.id));
    expect(early.code).toBe(1);
    expect(early.stderr).toMatch(/not closed and final/);
    await s.pg
      .sql`update seasons set status = 'CLOSED', finalized_at = now() - interval '31 days' where id = ${season.id}`;

    // SIGKILL as soon as the first day's file is complete.
    const dir = join(root, `season-${season.id}`);
    const cli = spawn(
      process.execPath,
      [...nodeArgsFor('src/cli/main.ts'), 'history', 'archive', '--season', String(season.id)],
      {
        env: { ...process.env, ...env },
        stdio: 'ignore',
      },
    );
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      cli.once('exit', (_code, signal) => resolve(signal)),
    );
    await waitFor(
      'the first file of the export',
      async () => existsSync(dir) && readdirSync(dir).some((f) => f.endsWith('.csv.gz')),
      60_000,
    );
    cli.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect(existsSync(join(dir, 'manifest.json'))).toBe(false);
    expect(await attached(`match_results_s${season.id}`)).toBe(true);
    expect(await fingerprint('match_results', season.id)).toEqual(before);
    expect(await rankFingerprint('public', season.id)).toEqual(ranksBefore);
    expect(await createHistoryArchive(s.pg.sql).record(season.id)).toBeUndefined();

    const done = await runCli(env, 'history', 'archive', '--season', String(season.id));
    expect(done, done.stderr).toMatchObject({ code: 0 });
    expect(done.stdout).toBe(
      `archived season ${season.id}: ${DAYS * PER_DAY} results in ${DAYS} files under ${dir}; partitions dropped\n`,
    );
    expect(readdirSync(dir).sort()).toEqual(
      [
        ...Array.from(
          { length: DAYS },
          (_, d) =>
            `match_results_s${season.id}_${new Date(first + d * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '')}.csv.gz`,
        ),
        'manifest.json',
        'rank_slots.csv.gz',
        'rank_snapshots.csv.gz',
      ].sort(),
    );
    expect(await rankFingerprint('public', season.id)).toMatchObject({ slots: 0, chunks: 0 });
    expect(await attached(`match_results_s${season.id}`)).toBe(false);
    expect((await s.pg.sql`select to_regclass(${`match_results_s${season.id}`}) as t`)[0]!.t).toBeNull();
    const again = await runCli(env, 'history', 'archive', '--season', String(season.id));
    expect(again.stdout).toBe(`season ${season.id} was archived already (${DAYS * PER_DAY} results under ${dir})\n`);

    const schema = `archive_check_${season.id}`;
    try {
      const load = await runCli(env, 'history', 'load', '--dir', dir, '--schema', schema);
      expect(load, load.stderr).toMatchObject({ code: 0 });
      expect(await fingerprint(`${schema}.match_results`, season.id)).toEqual(before);
      expect(await rankFingerprint(schema, season.id)).toEqual(ranksBefore);
    } finally {
      await s.pg.sql.unsafe(`drop schema if exists ${schema} cascade`);
    }
  }, 180_000);

  it('drops the claims partitions of days no open season can need', async () => {
    const store = createHistoryArchive(s.pg.sql);
    await s.pg.sql`select ladder_claims_partition('2001-01-01'::date)`;
    await s.pg.sql`select ladder_claims_partition('2001-01-02'::date)`;
    expect(await store.dropClaimsBefore('2001-01-02')).toContain('match_claims_20010101');
    expect((await s.pg.sql`select to_regclass('match_claims_20010101') as t`)[0]!.t).toBeNull();
    expect((await s.pg.sql`select to_regclass('match_claims_20010102') as t`)[0]!.t).not.toBeNull();
  });
});
