// The storage side of archiving raw history (service/archive-history.ts has the procedure):
// each day partition of a season streamed out with COPY into a gzipped CSV, read back to verify,
// the season's partitions detached and dropped, an archive loaded back into a scratch schema.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { ARCHIVE_COLUMNS, RANK_ARCHIVE_COLUMNS, type ArchiveFile, type ArchiveManifest } from '../domain/archive.js';
import type { ArchiveRecord } from '../service/archive-history.js';
import type { Sql } from './client.js';

const utc = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
// A jsonb value as a CSV field: quoted, its quotes doubled; null stays an empty field (COPY's NULL).
const csvJson = (column: string) => `'"' || replace(${column}::text, '"', '""') || '"' as ${column}`;
/**
 * Columns as select expressions: times as UTC text, whatever the session's time zone; bytea as hex
 * text; metadata as a quoted CSV field (jsonb's text never holds a newline, so a row stays a line).
 */
const selectList = (columns: readonly string[]) =>
  columns
    .map((c) =>
      c.endsWith('_at') || c === 'boundary'
        ? `${utc(c)} as ${c}`
        : c === 'ranks'
          ? `'\\x' || encode(${c}, 'hex') as ${c}`
          : c === 'metadata'
            ? csvJson(c)
            : c,
    )
    .join(', ');
type RankTable = keyof typeof RANK_ARCHIVE_COLUMNS;
const RANK_TABLES = Object.keys(RANK_ARCHIVE_COLUMNS) as RankTable[];

/** Passes bytes through, counting them, their newlines and their SHA-256. */
function tally() {
  const t = { bytes: 0, lines: 0, hash: createHash('sha256') };
  const stream = new Transform({
    transform(chunk: Buffer, _enc, done: TransformCallback) {
      t.bytes += chunk.length;
      t.hash.update(chunk);
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) t.lines++;
      done(null, chunk);
    },
  });
  return { stream, t };
}

/** Flushes a file, or a directory's entries, to disk. */
async function fsync(path: string): Promise<void> {
  const fh = await open(path, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Writes `bytes` to `path` durably: a temporary file, fsync, rename, fsync of the directory. */
async function writeDurably(path: string, write: (tmp: string) => Promise<void>): Promise<void> {
  const tmp = `${path}.tmp`;
  await write(tmp);
  await fsync(tmp);
  await rename(tmp, path);
  await fsync(dirname(path));
}

/** Reads a file back from disk: its SHA-256 and its row count must be the manifest's. */
async function verifyFile(dir: string, f: ArchiveFile): Promise<void> {
  const packed = tally();
  const plain = tally();
  await pipeline(createReadStream(join(dir, f.file)), packed.stream, createGunzip(), plain.stream, async (s) => {
    for await (const chunk of s) void chunk;
  });
  const sha256 = packed.t.hash.digest('hex');
  if (sha256 !== f.sha256) throw new Error(`${f.file}: SHA-256 ${sha256} on disk, ${f.sha256} written`);
  if (plain.t.lines - 1 !== f.rows) throw new Error(`${f.file}: ${plain.t.lines - 1} rows on disk, ${f.rows} written`);
}

/** Archive files and the partitions they come from. */
export function createHistoryArchive(sql: Sql) {
  /** `query`'s rows as a gzipped CSV with a header, `dir/<file>`; durable before it returns. */
  async function exportRows(
    file: string,
    query: string,
    columns: readonly string[],
    dir: string,
  ): Promise<ArchiveFile> {
    await mkdir(dir, { recursive: true });
    const plain = tally();
    const packed = tally();
    await writeDurably(join(dir, file), async (tmp) => {
      // A cursor, not COPY TO STDOUT: postgres.js 3.4 leaves a COPY's connection paused when
      // the consumer applied backpressure (porsager/postgres#499), and the pool then hangs.
      const rows = sql.unsafe(query).cursor(5_000);
      async function* csv() {
        yield `${columns.join(',')}\n`;
        for await (const batch of rows) yield batch.map((r) => `${columns.map((c) => r[c]).join(',')}\n`).join('');
      }
      await pipeline(Readable.from(csv()), plain.stream, createGzip(), packed.stream, createWriteStream(tmp));
    });
    return { file, rows: plain.t.lines - 1, bytes: packed.t.bytes, sha256: packed.t.hash.digest('hex') };
  }

  return {
    /** A season's day partitions of match_results, oldest first, with their row counts. */
    async seasonPartitions(seasonId: number): Promise<Array<{ table: string; day: string; rows: number }>> {
      const tables = await sql<{ table: string }[]>`
        select c.relname as table from pg_inherits i join pg_class c on c.oid = i.inhrelid
        where i.inhparent = to_regclass(${`match_results_s${seasonId}`}) order by c.relname`;
      const out = [];
      for (const { table } of tables) {
        const [n] = await sql<[{ n: string }]>`select count(*) as n from ${sql(table)}`;
        const day = table.slice(-8);
        out.push({ table, day: `${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6)}`, rows: Number(n.n) });
      }
      return out;
    },

    /** One partition's rows, in key order, to `dir/<table>.csv.gz`; durable before it returns. */
    async exportPartition(table: string, day: string, dir: string): Promise<ArchiveFile> {
      const query = `select ${selectList(ARCHIVE_COLUMNS)} from "${table}" order by ended_at, match_id, player_id`;
      return { ...(await exportRows(`${table}.csv.gz`, query, ARCHIVE_COLUMNS, dir)), day };
    },

    /** The season's rank history, a file per table, with each table's row count to check against. */
    async exportRankHistory(seasonId: number, dir: string): Promise<Array<{ file: ArchiveFile; rows: number }>> {
      const out = [];
      for (const table of RANK_TABLES) {
        const columns = RANK_ARCHIVE_COLUMNS[table];
        const [n] = await sql<[{ n: string }]>`select count(*) as n from ${sql(table)} where season_id = ${seasonId}`;
        const query = `select ${selectList(columns)} from ${table} where season_id = ${Number(seasonId)} order by ${columns[1]}, ${columns[2]}`;
        out.push({ file: await exportRows(`${table}.csv.gz`, query, columns, dir), rows: Number(n.n) });
      }
      return out;
    },

    /** Deletes the season's rank history (once its archive is verified). */
    async dropRankHistory(seasonId: number): Promise<void> {
      for (const table of RANK_TABLES) await sql`delete from ${sql(table)} where season_id = ${seasonId}`;
    },

    verifyFile,

    /** Writes manifest.json last and durably; returns its SHA-256. */
    async writeManifest(dir: string, manifest: ArchiveManifest): Promise<string> {
      const text = `${JSON.stringify(manifest, null, 2)}\n`;
      await writeDurably(join(dir, 'manifest.json'), (tmp) => writeFile(tmp, text));
      return createHash('sha256').update(text).digest('hex');
    },

    /** Removes what an export that did not finish left (a directory without a manifest is never trusted). */
    async discard(dir: string): Promise<void> {
      await rm(dir, { recursive: true, force: true });
    },

    /** The season's archive record, if any. */
    async record(seasonId: number): Promise<ArchiveRecord | undefined> {
      const [row] = await sql<{ dir: string; files: number; rows: string; dropped_ms: string | null }[]>`
        select dir, files, rows, floor(extract(epoch from dropped_at) * 1000)::int8 as dropped_ms
        from season_archives where season_id = ${seasonId}`;
      return (
        row && {
          dir: row.dir,
          files: row.files,
          rows: Number(row.rows),
          droppedAt: row.dropped_ms === null ? null : new Date(Number(row.dropped_ms)),
        }
      );
    },

    async pendingSeasons(): Promise<Array<{ id: number; finalizedAt: Date }>> {
      const rows = await sql<{ id: number; finalized_ms: string }[]>`
        select s.id, floor(extract(epoch from s.finalized_at) * 1000)::int8 as finalized_ms from seasons s
        where s.finalized_at is not null
          and not exists (select 1 from season_archives a where a.season_id = s.id and a.dropped_at is not null)`;
      return rows.map((r) => ({ id: r.id, finalizedAt: new Date(Number(r.finalized_ms)) }));
    },

    /** Records a verified archive: from here on its partitions may go. */
    async recordVerified(seasonId: number, dir: string, manifest: ArchiveManifest, manifestSha256: string) {
      await sql`insert into season_archives (season_id, dir, files, rows, manifest_sha256, verified_at)
        values (${seasonId}, ${dir}, ${manifest.files.length}, ${manifest.rows}, ${manifestSha256}, now())
        on conflict (season_id) do update set dir = excluded.dir, files = excluded.files, rows = excluded.rows,
          manifest_sha256 = excluded.manifest_sha256, verified_at = excluded.verified_at`;
    },

    /**
     * Detaches the season's partition from match_results CONCURRENTLY (ingest into other seasons
     * goes on: only a SHARE UPDATE EXCLUSIVE lock) and drops it; resumes a detach cut short.
     */
    async dropSeasonPartitions(seasonId: number): Promise<void> {
      const table = `match_results_s${seasonId}`;
      const [p] = await sql<{ pending: boolean }[]>`
        select inhdetachpending as pending from pg_inherits where inhrelid = to_regclass(${table})`;
      if (p)
        await sql`alter table match_results detach partition ${sql(table)} ${p.pending ? sql`finalize` : sql`concurrently`}`;
      await sql`drop table if exists ${sql(table)}`;
      await sql`update season_archives set dropped_at = now() where season_id = ${seasonId}`;
    },

    /** Drops the match_claims partitions of days before `day` (detached concurrently first). */
    async dropClaimsBefore(day: string): Promise<string[]> {
      const old = await sql<{ table: string; pending: boolean }[]>`
        select c.relname as table, i.inhdetachpending as pending from pg_inherits i join pg_class c on c.oid = i.inhrelid
        where i.inhparent = 'match_claims'::regclass and c.relname < ${`match_claims_${day.replaceAll('-', '')}`}
        order by c.relname`;
      for (const { table, pending } of old) {
        await sql`alter table match_claims detach partition ${sql(table)} ${pending ? sql`finalize` : sql`concurrently`}`;
        await sql`drop table ${sql(table)}`;
      }
      return old.map((o) => o.table);
    },

    /**
     * Loads an archive into `schema`.match_results, rank_slots and rank_snapshots (plain tables,
     * created): checks every file against the manifest first. Returns the results loaded.
     */
    async load(dir: string, schema: string): Promise<{ manifest: ArchiveManifest; rows: number }> {
      const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as ArchiveManifest;
      for (const f of [...manifest.files, ...manifest.rankHistory]) await verifyFile(dir, f);
      await sql`create schema if not exists ${sql(schema)}`;
      const copyIn = async (table: string, columns: readonly string[], file: string) => {
        const sink = await sql`copy ${sql(schema)}.${sql(table)} (${sql(columns as string[])})
          from stdin with (format csv, header)`.writable();
        await pipeline(createReadStream(join(dir, file)), createGunzip(), sink);
      };
      for (const table of ['match_results', ...RANK_TABLES])
        await sql`create table ${sql(schema)}.${sql(table)} (like public.${sql(table)} including defaults including constraints)`;
      // The columns the archive was written with: one made before metadata existed has none.
      for (const f of manifest.files) await copyIn('match_results', manifest.columns, f.file);
      for (const table of RANK_TABLES) await copyIn(table, RANK_ARCHIVE_COLUMNS[table], `${table}.csv.gz`);
      const [n] = await sql<[{ n: string }]>`select count(*) as n from ${sql(schema)}.match_results`;
      return { manifest, rows: Number(n.n) };
    },
  };
}
