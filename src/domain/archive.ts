// Retention of raw history (docs/design.md#retention-and-archives): when a season's results
// leave PostgreSQL for an archive, and what the archive holds. Pure: the files are written by
// postgres/history-archive.ts, the steps ordered by service/archive-history.ts.
import type { Season } from './season.js';
import { dayPeriod } from './windows.js';

const DAY_MS = 86_400_000;

/** The version of the archive layout: a directory per season, one gzipped CSV per day partition. */
export const ARCHIVE_FORMAT = 'ladder-archive/1';

/** The CSV columns, in order, with a header line; times in UTC ISO 8601 with microseconds. */
export const ARCHIVE_COLUMNS = [
  'season_id',
  'ended_at',
  'match_id',
  'player_id',
  'points',
  'kafka_partition',
  'kafka_offset',
  'ingested_at',
  'metadata',
] as const;

/**
 * The season's rank history (docs/design.md#rank-history), archived with its results: the tables'
 * rows as they are, ranks as PostgreSQL's hex bytea text ('\\x0000000c...').
 */
export const RANK_ARCHIVE_COLUMNS = {
  rank_slots: ['season_id', 'player_id', 'slot'],
  rank_snapshots: ['season_id', 'boundary', 'chunk', 'taken_at', 'players', 'ranks'],
} as const;

/** One file: a day partition's results (`day` set) or a rank-history table's rows. sha256 is of the
 * file's bytes (gzip), rows excludes the header. */
export interface ArchiveFile {
  file: string;
  day?: string;
  rows: number;
  bytes: number;
  sha256: string;
}

/** manifest.json: written last, so a directory without it is an export that did not finish. */
export interface ArchiveManifest {
  format: typeof ARCHIVE_FORMAT;
  seasonId: number;
  seasonName: string;
  columns: readonly string[];
  rows: number;
  files: ArchiveFile[];
  /** rank_slots.csv.gz and rank_snapshots.csv.gz (RANK_ARCHIVE_COLUMNS). */
  rankHistory: ArchiveFile[];
  createdAt: string;
}

/** The finalized seasons whose raw results are due for archiving at `at` (afterDays 0: none). */
export function archiveDue(
  seasons: ReadonlyArray<Pick<Season, 'id' | 'finalizedAt'>>,
  at: Date,
  afterDays: number,
): number[] {
  if (afterDays <= 0) return [];
  const cutoff = at.getTime() - afterDays * DAY_MS;
  return seasons.filter((s) => s.finalizedAt && s.finalizedAt.getTime() <= cutoff).map((s) => s.id);
}

/**
 * The first day whose match_claims partition must stay; those before it may be dropped. A claim
 * serves submissions to seasons not yet final, whose endedAt is never before their start: so
 * keep from the earliest such start, and in any case the last `afterDays` days (0: keep all, null).
 */
export function claimsKeptFrom(
  unfinished: ReadonlyArray<Pick<Season, 'startsAt' | 'finalizedAt'>>,
  at: Date,
  afterDays: number,
): string | null {
  if (afterDays <= 0) return null;
  let from = Math.floor(at.getTime() / DAY_MS) * DAY_MS - afterDays * DAY_MS;
  for (const s of unfinished)
    if (!s.finalizedAt) from = Math.min(from, Math.floor(s.startsAt.getTime() / DAY_MS) * DAY_MS);
  return dayPeriod(new Date(from));
}
