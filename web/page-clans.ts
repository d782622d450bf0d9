// The board page's clans: the board's best 10 clans by their members' total, read again as the
// top changes; clicking one ranks the board within it (web/page.ts).
import type { GroupStanding } from '../src/client/ladder-client.js';
import { count } from './page-format.js';
import { $, boardVars, client, failed, state } from './page-state.js';

let clansTimer: ReturnType<typeof setTimeout> | undefined;

/**
 * Reads the clans again half a second after a top update, at most twice a second however often
 * it changes: a clan's total moves with its members' points, which is when the top moves too
 * (group boards have no push of their own).
 */
export function refreshClans(): void {
  clansTimer ??= setTimeout(() => {
    clansTimer = undefined;
    void showClans().catch(failed);
  }, 500);
}

/**
 * The board's best 10 clans by their members' total (Leaderboard.groups). Always those of the
 * whole board, so they stay to pick from while one is picked (marked); hidden when the board
 * ranks none (nobody in a clan, or an ASC board).
 */
export async function showClans(): Promise<void> {
  const view = JSON.stringify(boardVars());
  const groups = await client.groups(state.seasonId!, {
    board: state.board,
    window: state.window,
    at: state.at,
    first: 10,
  });
  if (view !== JSON.stringify(boardVars())) return; // the view moved on while this was read
  $('#clans tbody').replaceChildren(...(groups ?? []).map(clanRow));
  $('#clans-view').hidden = !groups?.length;
}

function clanRow(g: GroupStanding): HTMLTableRowElement {
  const tr = document.createElement('tr');
  tr.dataset.group = g.group;
  tr.dataset.rank = String(g.rank);
  const picked = state.scope?.group === g.group;
  if (picked) tr.className = 'picked';
  // A button, so that a keyboard picks a clan too; the picked one goes back to everyone.
  const pick = document.createElement('button');
  pick.type = 'button';
  pick.className = 'link';
  pick.textContent = g.group;
  pick.title = picked ? 'rank everyone again' : `rank within clan ${g.group}`;
  for (const [cls, content] of [
    ['rank', `#${g.rank}`],
    ['clan', pick],
    ['total', count(g.points)],
    ['members', count(g.members)],
  ] as const) {
    const td = document.createElement('td');
    td.className = cls;
    td.append(content);
    tr.append(td);
  }
  return tr;
}

/** Drops a pending read (another board: follow() reads them at once). */
export function resetClans(): void {
  clearTimeout(clansTimer);
  clansTimer = undefined;
}
