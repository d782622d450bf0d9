// The board page's board, window and period pickers: what the season keeps (Season.boards,
// Board.windows, Season.periods).
import type { SeasonsQuery, Window } from '../src/client/ladder-client.js';
import { count } from './page-format.js';
import { $, client, state } from './page-state.js';

const WINDOW_LABELS: Record<Window, string> = {
  SEASON: 'season',
  MONTH: 'this month',
  WEEK: 'this week',
  DAY: 'today',
  CUSTOM: 'this period',
};

type SeasonInfo = SeasonsQuery['seasons'][number];

/**
 * The board picker offers the season's boards (Season.boards: another name falls back to its
 * first), the heading names what the board ranks; returns the windows that board keeps.
 */
export function showBoards(season: SeasonInfo | undefined): readonly Window[] {
  const boards = season?.boards ?? [];
  if (!boards.some((b) => b.name === state.board)) state.board = undefined;
  const board = boards.find((b) => b.name === state.board) ?? boards[0];
  $<HTMLSelectElement>('#board').replaceChildren(...boards.map((b) => new Option(b.name.replaceAll('_', ' '), b.name)));
  $<HTMLSelectElement>('#board').value = board?.name ?? '';
  $('#board-picker').hidden = boards.length < 2;
  // What it ranks: "wins · kills", "wins total · lap", "rating (latest)", "kills (total)".
  const ranks = board?.keys.length
    ? board.keys.map((k) => (k.aggregate === 'SUM' ? `${k.stat} total` : k.stat)).join(' · ')
    : `${board?.stat ?? 'points'}${board?.scoring === 'LAST' ? ' (latest)' : board?.scoring === 'SUM' ? ' (total)' : ''}`;
  for (const th of document.querySelectorAll('th.points')) th.textContent = ranks.replaceAll('_', ' ');
  return board?.windows ?? ['SEASON'];
}

/** The window picker offers the windows the board keeps (Board.windows); another one falls back to SEASON. */
export function showWindows(windows: readonly Window[]): void {
  if (!windows.includes(state.window)) state.window = 'SEASON';
  const order: Window[] = ['SEASON', 'MONTH', 'WEEK', 'DAY', 'CUSTOM'];
  $<HTMLSelectElement>('#window').replaceChildren(
    ...order.filter((w) => windows.includes(w)).map((w) => new Option(WINDOW_LABELS[w], w)),
  );
  $<HTMLSelectElement>('#window').value = state.window;
}

/** The past days, weeks or months of the board that hold standings (Season.periods), for the period picker. */
export async function listPeriods(): Promise<void> {
  const picker = $('#period-picker');
  picker.hidden = state.window === 'SEASON';
  if (picker.hidden) return;
  const periods = await client.periods({
    seasonId: state.seasonId!,
    board: state.board,
    window: state.window,
    first: 30,
  });
  const current = WINDOW_LABELS[state.window];
  $<HTMLSelectElement>('#period').replaceChildren(
    new Option(`${current} (live)`, ''),
    ...(periods ?? []).map((p) => new Option(`${p.period} · ${count(p.leaderboard.size)} players`, p.periodStart)),
  );
  $<HTMLSelectElement>('#period').value = state.at ?? '';
}
