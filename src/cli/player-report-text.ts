// The CLI's text for player removals, blocks and hides.
import type { BlockReport } from '../service/blocked-players.js';
import type { HideReport } from '../service/hidden-players.js';
import type { PlayerRemovalReport } from '../service/remove-player-results.js';

const label = (window: string, period: string) => (window === 'SEASON' ? 'SEASON' : `${window} ${period}`);

/** The lines `players remove` prints: what was removed, and the player's standing left on each board. */
export function removalReportLines(
  r: PlayerRemovalReport & { settled?: { removedResults: number; boardChanges: number } },
): string[] {
  const what = r.matchId ? `match ${r.matchId}` : 'all results';
  const lines = [
    `removed ${r.removedResults} result(s) of player ${r.playerId} from season ${r.seasonId} (${what}); audit #${r.auditId}` +
      (r.blocked ? '; player blocked in this season' : ''),
  ];
  const width = Math.max(0, ...r.boards.map((b) => label(b.window, b.period).length));
  for (const b of r.boards) {
    const now = b.standing
      ? `${b.standing.points} points, reached ${b.standing.achievedAt.toISOString()}`
      : 'off the board';
    lines.push(`  ${label(b.window, b.period).padEnd(width)}  ${now}`);
  }
  if (r.settled) {
    lines.push(
      r.settled.removedResults > 0 || r.settled.boardChanges > 0
        ? `settled: took back ${r.settled.removedResults} result(s) that raced the removal, corrected ${r.settled.boardChanges} board entries`
        : 'settled: nothing raced the removal',
    );
  }
  return lines;
}

/** The line `players block` / `players unblock` prints. */
export function blockReportLine(r: BlockReport): string {
  const state = r.blocked ? 'blocked' : 'unblocked';
  return `${r.changed ? '' : 'already '}${state}: player ${r.playerId} in season ${r.seasonId}; audit #${r.auditId}`;
}

/** The line `players hide` and `players unhide` print. */
export function hideReportLine(r: HideReport): string {
  const state = r.hidden ? 'hidden from the boards' : 'shown on the boards';
  return `${r.changed ? '' : 'already '}${state}: player ${r.playerId} in season ${r.seasonId} (${r.boardChanges} board entries changed); audit #${r.auditId}`;
}
