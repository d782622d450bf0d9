import { badInput, conflict, seasonNotFound } from '../domain/errors.js';
import { ALL_WINDOWS, type Season, type Window } from '../domain/season.js';
import { isValidPeriod } from '../domain/windows.js';

/** The export formats: RFC 4180 CSV (with a header line) or one JSON object per line. */
export type ExportFormat = 'csv' | 'ndjson';

/** One exported line: a player's final place on one board. */
export interface ExportRow {
  rank: number;
  playerId: string;
  displayName: string | null;
  /** Exact decimal digits (bigint in PostgreSQL). */
  points: string;
  achievedAt: Date;
  window: Window;
  period: string;
}

/** Which boards to export: every board, one window's, or one period's. */
export interface ExportFilter {
  window?: Window;
  period?: string;
}

/** Pages of final standings, board by board, best first (src/postgres/final-standings-export.ts). */
export interface FinalStandingsSource {
  pages(seasonId: number, filter: ExportFilter, pageSize: number): AsyncIterable<ExportRow[]>;
}

/** The column names, in order, of both formats. */
const EXPORT_COLUMNS = ['rank', 'player_id', 'display_name', 'points', 'achieved_at', 'window', 'period'] as const;

/** One CSV field per RFC 4180: quoted when it holds a comma, a quote or a line break; quotes doubled. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** The lines of `rows` in `format`, each ended by CRLF (CSV, RFC 4180) or LF (NDJSON). */
export function formatRows(rows: readonly ExportRow[], format: ExportFormat): string {
  if (format === 'ndjson') {
    return rows
      .map(
        (r) =>
          `${JSON.stringify({
            rank: r.rank,
            player_id: r.playerId,
            display_name: r.displayName,
            points: Number(r.points),
            achieved_at: r.achievedAt.toISOString(),
            window: r.window,
            period: r.period,
          })}\n`,
      )
      .join('');
  }
  return rows
    .map(
      (r) =>
        `${[String(r.rank), r.playerId, r.displayName ?? '', r.points, r.achievedAt.toISOString(), r.window, r.period]
          .map(csvField)
          .join(',')}\r\n`,
    )
    .join('');
}

const PERIOD_FORMAT = { DAY: 'yyyy-mm-dd', WEEK: 'YYYY-Www', MONTH: 'yyyy-mm', CUSTOM: 'yyyy-mm-ddTHH:MM' } as const;

/** Checks a filter: a period needs its DAY, WEEK or MONTH window and must be canonical ('2026-03-01', '2026-W09'). */
export function parseExportFilter(window: string | undefined, period: string | undefined): ExportFilter {
  if (window !== undefined && !(ALL_WINDOWS as readonly string[]).includes(window)) {
    throw badInput('window', `window must be ${ALL_WINDOWS.join(', ')}, got "${window}"`);
  }
  const w = window as Window | undefined;
  if (period === undefined) return w ? { window: w } : {};
  if (w === undefined || w === 'SEASON') {
    throw badInput('period', 'a period needs --window DAY, WEEK, MONTH or CUSTOM');
  }
  if (!isValidPeriod(w, period)) {
    throw badInput('period', `period must be ${PERIOD_FORMAT[w]}, got "${period}"`);
  }
  return { window: w, period };
}

/**
 * Streams a finalized season's final standings to `write` (which applies backpressure), one page
 * at a time. SEASON_NOT_FOUND for an unknown season; CONFLICT while it is not finalized, since
 * season_final_standings is written only when the season closes.
 */
export async function exportFinalStandings(
  deps: { seasonById(id: number): Promise<Season | undefined>; source: FinalStandingsSource; pageSize?: number },
  input: { seasonId: number; filter: ExportFilter; format: ExportFormat },
  write: (chunk: string) => Promise<void>,
): Promise<{ rows: number }> {
  const season = await deps.seasonById(input.seasonId);
  if (!season) throw seasonNotFound(input.seasonId);
  if (!season.finalizedAt) {
    throw conflict(
      'seasonId',
      `season ${season.id} is not finalized yet: its final standings are written when it closes ` +
        `(\`npm run cli -- seasons close --season ${season.id}\` or at its end); export it after that`,
    );
  }
  if (input.format === 'csv') await write(`${EXPORT_COLUMNS.join(',')}\r\n`);
  let rows = 0;
  for await (const page of deps.source.pages(season.id, input.filter, deps.pageSize ?? 5_000)) {
    await write(formatRows(page, input.format));
    rows += page.length;
  }
  return { rows };
}
