// The board page's tables: an entry's row (rank, global rank within a scope, movement, name with
// its metadata, points or keys), and the top 100 with each row's movement since the previous update
// and the board's size in the heading.
import type { Entry } from '../src/client/ladder-client.js';
import { appendCells } from './entry-cells.js';
import { count, metadataText, movement, scopeKey, scopeLabel } from './page-format.js';
import { $, boardVars, client, state } from './page-state.js';
import { refreshClans } from './page-clans.js';

export function row(e: Entry, move = { text: '', cls: '' }): HTMLTableRowElement {
  const tr = document.createElement('tr');
  tr.dataset.player = e.playerId;
  tr.dataset.rank = String(e.rank);
  if (move.cls === 'new') tr.className = 'new';
  else if (move.cls) tr.className = 'changed';
  if (e.playerId === state.player) tr.classList.add('me');
  // Within a scope, the rank on the whole board beside the rank in the scope.
  const global: Array<[string, string]> = state.scope
    ? [['global', e.globalRank === null ? '' : `#${count(e.globalRank)} global`]]
    : [];
  if (state.scope && e.globalRank !== null) tr.dataset.globalRank = String(e.globalRank);
  appendCells(tr, e.playerId, [
    ['rank', `#${e.rank}`],
    ...global,
    [`move ${move.cls}`, move.text],
    ['name', e.player?.displayName ?? e.playerId],
    ['points', e.keys ? e.keys.join(' · ') : String(e.points)],
  ]);
  // Metadata under the name, small: a column of its own would squeeze names on a phone.
  if (e.metadata) {
    const meta = document.createElement('div');
    meta.className = 'meta';
    meta.textContent = metadataText(e.metadata);
    meta.title = JSON.stringify(e.metadata);
    tr.querySelector('.name')!.append(meta);
  }
  return tr;
}

// ---- top 100 ----
let topRanks: Map<string, number> | undefined;
/** Each player's last movement: shown until their rank moves again (updates come several a second). */
let lastMoves = new Map<string, { text: string; cls: string }>();
let sizeTimer: ReturnType<typeof setTimeout> | undefined;

export function showTop(entries: Entry[]): void {
  const before = topRanks;
  const moves = new Map<string, { text: string; cls: string }>();
  const rows = entries.map((e) => {
    const move = movement(e.rank, before?.get(e.playerId), before !== undefined);
    const shown = move.text ? move : (lastMoves.get(e.playerId) ?? move);
    moves.set(e.playerId, shown);
    const tr = row(e, shown);
    if (!move.text) tr.classList.remove('new', 'changed'); // highlighted only when it happens
    return tr;
  });
  $('#top tbody').replaceChildren(...rows);
  topRanks = new Map(entries.map((e) => [e.playerId, e.rank]));
  lastMoves = moves;
  refreshClans();
  // The board's size (and the 1,000th place) are not part of topChanged: read half a second
  // after an update, at most twice a second however often the top changes.
  sizeTimer ??= setTimeout(() => {
    sizeTimer = undefined;
    void client.cutoff({ ...boardVars(), rank: CUTOFF_PLACE }).then(
      (b) => {
        const needs = b?.cutoff ? ` · top ${count(CUTOFF_PLACE)} needs ${count(b.cutoff.points)} points` : '';
        const within = state.scope ? ` in ${scopeLabel(scopeKey(state.scope))}` : '';
        $('#size').textContent = b ? `of ${count(b.size)} players${within}${needs}` : '';
      },
      () => {},
    );
  }, 500);
}

const CUTOFF_PLACE = 1_000;

/** Forgets the top shown (another board): no movement on its first update, no size read pending. */
export function resetTop(): void {
  topRanks = undefined;
  lastMoves = new Map();
  clearTimeout(sizeTimer);
  sizeTimer = undefined;
  $('#size').textContent = '';
}
