// Archiving a closed season's raw results and rank history (docs/design.md#retention-and-archives):
// every day partition and rank-history table exported, every file read back and checked, the
// manifest written, the archive recorded, and only then the partitions and rank history dropped.
// A crash at any step leaves them in place; the next run starts the export over. Final standings,
// standings and audit rows stay.
import {
  ARCHIVE_COLUMNS,
  ARCHIVE_FORMAT,
  archiveDue,
  claimsKeptFrom,
  type ArchiveFile,
  type ArchiveManifest,
} from '../domain/archive.js';
import { conflict, seasonNotFound } from '../domain/errors.js';
import type { Season } from '../domain/season.js';

/** postgres/history-archive.ts. */
interface HistoryArchiveStore {
  seasonPartitions(seasonId: number): Promise<Array<{ table: string; day: string; rows: number }>>;
  exportPartition(table: string, day: string, dir: string): Promise<ArchiveFile>;
  /** Each rank-history table's file, with the rows the table held. */
  exportRankHistory(seasonId: number, dir: string): Promise<Array<{ file: ArchiveFile; rows: number }>>;
  dropRankHistory(seasonId: number): Promise<void>;
  verifyFile(dir: string, file: ArchiveFile): Promise<void>;
  writeManifest(dir: string, manifest: ArchiveManifest): Promise<string>;
  discard(dir: string): Promise<void>;
  record(seasonId: number): Promise<ArchiveRecord | undefined>;
  /** Finalized seasons whose partitions are not dropped yet. */
  pendingSeasons(): Promise<Array<Pick<Season, 'id' | 'finalizedAt'>>>;
  recordVerified(seasonId: number, dir: string, manifest: ArchiveManifest, manifestSha256: string): Promise<void>;
  dropSeasonPartitions(seasonId: number): Promise<void>;
  dropClaimsBefore(day: string): Promise<string[]>;
  load(dir: string, schema: string): Promise<{ manifest: ArchiveManifest; rows: number }>;
}

/** season_archives: a verified archive, and when its partitions were dropped. */
export interface ArchiveRecord {
  dir: string;
  files: number;
  rows: number;
  droppedAt: Date | null;
}

export interface ArchiveDeps {
  store: HistoryArchiveStore;
  seasonById(id: number): Promise<Season | undefined>;
  /** Where archives go: one directory per season below it. */
  rootDir: string;
  now(): Date;
  onStep?(seasonId: number, step: string, detail: Record<string, unknown>): void;
}

export interface ArchiveReport {
  seasonId: number;
  dir: string;
  files: number;
  rows: number;
  /** False when an earlier run had archived and dropped it already. */
  archived: boolean;
}

/** Archives one finalized season's raw results and drops their partitions; idempotent. */
export async function archiveSeasonHistory(deps: ArchiveDeps, seasonId: number): Promise<ArchiveReport> {
  const season = await deps.seasonById(seasonId);
  if (!season) throw seasonNotFound(seasonId);
  if (!season.finalizedAt)
    throw conflict('seasonId', `season ${seasonId} is not closed and final: its results are live`);
  const dir = `${deps.rootDir}/season-${seasonId}`;
  const done = await deps.store.record(seasonId);
  if (done?.droppedAt) return { seasonId, dir: done.dir, files: done.files, rows: done.rows, archived: false };
  if (!done) {
    // No verified archive: whatever a run cut short left in the directory is redone from scratch.
    await deps.store.discard(dir);
    const files: ArchiveFile[] = [];
    for (const p of await deps.store.seasonPartitions(seasonId)) {
      const file = await deps.store.exportPartition(p.table, p.day, dir);
      if (file.rows !== p.rows) throw new Error(`${p.table}: exported ${file.rows} rows of ${p.rows}`);
      files.push(file);
      deps.onStep?.(seasonId, 'exported', { file: file.file, rows: file.rows, bytes: file.bytes });
    }
    const rankHistory: ArchiveFile[] = [];
    for (const { file, rows } of await deps.store.exportRankHistory(seasonId, dir)) {
      if (file.rows !== rows) throw new Error(`${file.file}: exported ${file.rows} rows of ${rows}`);
      rankHistory.push(file);
    }
    for (const f of [...files, ...rankHistory]) await deps.store.verifyFile(dir, f);
    const manifest: ArchiveManifest = {
      format: ARCHIVE_FORMAT,
      seasonId,
      seasonName: season.name,
      columns: ARCHIVE_COLUMNS,
      rows: files.reduce((n, f) => n + f.rows, 0),
      files,
      rankHistory,
      createdAt: deps.now().toISOString(),
    };
    const sha256 = await deps.store.writeManifest(dir, manifest);
    await deps.store.recordVerified(seasonId, dir, manifest, sha256);
    deps.onStep?.(seasonId, 'verified', { files: files.length, rows: manifest.rows, manifestSha256: sha256 });
  }
  // Verified (now or by a run that died before the drop finished): the partitions may go.
  await deps.store.dropSeasonPartitions(seasonId);
  await deps.store.dropRankHistory(seasonId);
  deps.onStep?.(seasonId, 'dropped', {});
  const record = (await deps.store.record(seasonId))!;
  return { seasonId, dir: record.dir, files: record.files, rows: record.rows, archived: true };
}

/**
 * The scheduler's retention pass: archives every season finalized `afterDays` ago or more, then
 * drops the claims partitions no open season can need. Returns what it archived.
 */
export async function applyRetention(
  deps: ArchiveDeps & { unfinishedSeasons(): Promise<Season[]> },
  afterDays: number,
): Promise<{ archived: number[]; claimsDropped: string[] }> {
  const at = deps.now();
  const archived: number[] = [];
  for (const id of archiveDue(await deps.store.pendingSeasons(), at, afterDays)) {
    await archiveSeasonHistory(deps, id);
    archived.push(id);
  }
  const keepFrom = claimsKeptFrom(await deps.unfinishedSeasons(), at, afterDays);
  const claimsDropped = keepFrom ? await deps.store.dropClaimsBefore(keepFrom) : [];
  return { archived, claimsDropped };
}
