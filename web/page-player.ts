// The board page's "you" panel: the followed player's entry (rank, percentile, movement) and
// neighbours, following rankChanged, their SEASON rank line (daily snapshots, then now) and the
// "My league" panel (web/league.ts).
import { createLeaguePanel } from './league.js';
import { count, movement, topPercent } from './page-format.js';
import { $, boardVars, client, failed, saveState, state } from './page-state.js';
import { row } from './page-board.js';

/** The searched player's subscription: restarted when the player changes too. */
let stopPlayer = () => {};
/** The "My league" panel: follows the player in the season when it is a league season. */
const league = createLeaguePanel(client, failed);
let playerRank: number | undefined;
/** The searched player's daily snapshots (they change at midnight: read once per player and season). */
let snapshots: { key: string; points: Array<{ at: string; rank: number | null }> } | undefined;

/**
 * The SEASON rank line: each daily snapshot, then `now`; rank 1 at the top. Hidden elsewhere.
 * Snapshots are of the whole board: within a scope, `now` is the global rank and the caption says so.
 */
async function showRankLine(now: number | undefined): Promise<void> {
  const figure = $('#rank-line');
  const key = `${state.seasonId}/${state.board ?? ''}/${state.player}`;
  if (state.window !== 'SEASON' || state.at || now === undefined) {
    figure.hidden = true;
    return;
  }
  if (snapshots?.key !== key) {
    const entry = await client.rankHistory({
      seasonId: state.seasonId!,
      board: state.board,
      playerId: state.player,
      last: 30,
    });
    snapshots = { key, points: (entry?.rankHistory ?? []).map((p) => ({ at: p.at, rank: p.rank })) };
  }
  const ranks = [...snapshots.points.flatMap((p) => (p.rank === null ? [] : [p.rank])), now];
  const [best, worst] = [Math.min(...ranks), Math.max(...ranks)];
  const x = (i: number) => (ranks.length === 1 ? 150 : (i * 290) / (ranks.length - 1) + 5);
  const y = (r: number) => (worst === best ? 30 : 5 + ((r - best) * 50) / (worst - best));
  figure.querySelector('polyline')!.setAttribute('points', ranks.map((r, i) => `${x(i)},${y(r)}`).join(' '));
  figure.dataset.ranks = ranks.join(',');
  const then = snapshots.points.at(-1);
  const caption = figure.querySelector('figcaption')!;
  if (then?.rank == null) caption.textContent = 'no rank at the last daily snapshot';
  else {
    const move = movement(now, then.rank, false);
    const global = state.scope ? 'global ' : '';
    caption.textContent = `${global}${move.text || '±0'} since ${then.at.slice(0, 10)} · ${snapshots.points.length} days kept`;
  }
  figure.hidden = false;
}

export async function showPlayer(): Promise<void> {
  const target = $('#player-entry');
  if (!state.player) {
    target.textContent = '';
    $('#around tbody').replaceChildren();
    return;
  }
  const vars = { ...boardVars(), playerId: state.player };
  const [entry, around] = await Promise.all([client.entry(vars), client.around({ ...vars, radius: 3 })]);
  const e = entry?.entry;
  if (!e) {
    target.textContent = `Player ${state.player} has no score on this board yet.`;
    delete target.dataset.rank;
  } else {
    const move = movement(e.rank, playerRank, false);
    // The board's size is the heading's (one count on the page): the percentile says the share.
    const global = state.scope && e.globalRank !== null ? ` · #${count(e.globalRank)} global` : '';
    target.textContent = `#${e.rank} (top ${topPercent(e.percentile)}%)${global} · ${e.player?.displayName ?? e.playerId} · ${e.points} points ${move.text}`;
    target.dataset.rank = String(e.rank);
    playerRank = e.rank;
  }
  $('#around tbody').replaceChildren(...(around?.around ?? []).map((a) => row(a)));
  await showRankLine((state.scope ? e?.globalRank : e?.rank) ?? undefined);
}

/** (Re)starts the searched player's part: their entry and neighbours now, then as they move. */
export function followPlayer(): void {
  stopPlayer();
  stopPlayer = () => {};
  saveState();
  playerRank = undefined;
  snapshots = undefined;
  league.follow(state.seasonId, state.player);
  if (state.player && state.seasonId) {
    // rankChanged follows the SEASON board; for a day or a week it is the cue to look again.
    stopPlayer = client.rankChanged(
      { seasonId: state.seasonId, board: state.board, scope: state.scope, playerId: state.player },
      () => {
        void showPlayer().catch(failed);
      },
      failed,
    );
  }
  void showPlayer().catch(failed);
}
