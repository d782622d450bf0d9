// Rebuild and reconcile reports as plain text lines, for the operator's command line.
import { DRIFT_KINDS } from '../domain/drift.js';
import type { RebuildReport } from '../service/rebuild-season.js';
import type { ReconcileReport } from '../service/reconcile-season.js';

const n = (v: number) => v.toLocaleString('en-US');

/** Columns two spaces apart: text left-aligned, numbers right-aligned. */
function columns(rows: string[][], numericFrom: number): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r
      .map((cell, i) => (i >= numericFrom ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

/** "key  value" lines of a rebuild report. */
export function rebuildReportLines(r: RebuildReport): string[] {
  return columns(
    [
      ['season', String(r.seasonId)],
      ['boards rebuilt', n(r.boards)],
      ['members written', n(r.members)],
      ['expired boards skipped', n(r.expiredBoardsSkipped)],
      ['duration', `${(r.durationMs / 1000).toFixed(1)} s`],
    ],
    2,
  );
}

/** A table of every board and the total, the samples of drifted player ids, and a verdict line. */
export function reconcileReportLines(r: ReconcileReport): string[] {
  const header = ['board', 'postgres', 'redis', 'missing', 'extra', 'different', 'repaired'];
  const row = (name: string, t: ReconcileReport['total']) => [
    name,
    n(t.pgCount),
    n(t.redisCount),
    n(t.missing),
    n(t.extra),
    n(t.different),
    n(t.repaired),
  ];
  const lines = columns(
    [
      header,
      ...r.boards.map((b) =>
        row((b.window === 'SEASON' ? 'SEASON' : `${b.window} ${b.period}`) + (b.scope ? ` @${b.scope}` : ''), b),
      ),
      row('total', r.total),
    ],
    1,
  );
  for (const kind of DRIFT_KINDS) {
    if (r.total.samples[kind].length > 0) lines.push(`${kind} (sample): ${r.total.samples[kind].join(' ')}`);
  }
  if (r.total.unencodable > 0) lines.push(`unencodable standings (never on a board): ${n(r.total.unencodable)}`);
  const drift = r.total.missing + r.total.extra + r.total.different;
  const verdict =
    drift === 0
      ? 'no drift'
      : r.repair
        ? `drift: ${n(drift)} entries, ${n(r.total.repaired)} repaired`
        : `drift: ${n(drift)} entries (report only: run with --repair to fix)`;
  lines.push(`season ${r.seasonId}: ${verdict} (${(r.durationMs / 1000).toFixed(1)} s)`);
  return lines;
}
