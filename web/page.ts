// The live board page (web/index.html): pick a season, one of its boards and a window; the top 100 follows
// topChanged with each row's movement since the previous update; a searched player's entry and
// neighbours follow rankChanged, under their rank line (the SEASON board's daily snapshots, then
// now) and percentile; friends compare a pasted list of up to 1,000 ids, a page at a time; the
// top's heading tells the board's size and what the top 1,000 takes. Every board can be ranked
// within a scope, the followed player's country, region or clan (playerScopes): then each entry
// shows its global rank beside its rank in the scope. The board's clans, ranked by their members'
// total, sit beside the top, read again as it changes; clicking one ranks the board within it.
// The followed player's rewards (of closed seasons and ended periods) are listed, and each new
// one appears as rewardGranted pushes it. In a league season, "My league" shows the followed player's
// tier, cohort, rank in it and zone, and the cohort (web/league.ts). State lives in the URL
// (?season=1&board=kills&window=DAY&player=42&friends=7,9&region=BR) so a view can be shared or
// reloaded. A multi-key board shows each entry's keys (wins · kills · time) where a board of one
// stat shows points.
// Plain DOM on the typed client; compiled by `npm run build:web` (tsconfig.web.json). This file
// wires the page (its pickers and forms) and follow(); the parts are page-*.ts: state (the client,
// the view's state in the URL, the status line), format, board (rows, the top 100), clans, scopes,
// player (the "you" panel), friends, rewards and pickers (board, window, period).
import type { Window } from '../src/client/ladder-client.js';
import { resetTop, showTop } from './page-board.js';
import { resetClans, showClans } from './page-clans.js';
import { scopeOf } from './page-format.js';
import { nextFriendsPage, showFriends, turnFriendsPage } from './page-friends.js';
import { listPeriods, showBoards, showWindows } from './page-pickers.js';
import { followPlayer, showPlayer } from './page-player.js';
import { followRewards } from './page-rewards.js';
import { listScopes, pickScope, showScopes } from './page-scopes.js';
import { $, boardVars, client, failed, saveState, state, status, stops } from './page-state.js';

/** (Re)starts every live part of the view for the current season and board. */
function follow(): void {
  for (const stop of stops.splice(0)) stop();
  saveState();
  if (!state.seasonId) return;
  resetTop();
  resetClans();
  void showClans().catch(failed);
  for (const th of document.querySelectorAll<HTMLElement>('th.global')) th.hidden = !state.scope;
  // A past period is read, not followed: its board changes only if results for it still arrive.
  const past = state.at !== undefined;
  const readTop = () =>
    client.top({ ...boardVars(), limit: 100, metadata: true }).then((b) => {
      // A CUSTOM period by its start to the minute (UTC), the others by their first day.
      const at = state.at!;
      status(
        state.window === 'CUSTOM'
          ? `period of ${at.slice(0, 16)}`
          : `${state.window.toLowerCase()} of ${at.slice(0, 10)}`,
      );
      showTop(b?.top ?? []);
    }, failed);
  if (past) void readTop();
  else
    stops.push(
      client.topChanged(
        { ...boardVars(), limit: 100, metadata: true },
        (top) => {
          status('live', true);
          showTop(top);
        },
        failed,
      ),
    );
  followPlayer();
  // Days and weeks have no per-player subscription, friends none at all: they are read again
  // every 2 s, and once now (a past period's top too).
  const poll = setInterval(() => {
    if (past) void readTop();
    if (state.window !== 'SEASON') void showPlayer().catch(failed);
    void showFriends().catch(failed);
  }, 2_000);
  stops.push(() => clearInterval(poll));
  void showFriends().catch(failed);
}

async function start(): Promise<void> {
  const seasons = await client.seasons({ status: 'ACTIVE' });
  const select = $<HTMLSelectElement>('#season');
  select.replaceChildren(
    ...seasons.map((s) => new Option(`${s.name} (${s.scoring.toLowerCase()}, #${s.id})`, String(s.id))),
  );
  if (seasons.length === 0) {
    status('no active season');
    return;
  }
  if (!seasons.some((s) => s.id === state.seasonId)) state.seasonId = seasons[0]!.id;
  select.value = String(state.seasonId);
  const seasonOf = (id: number) => seasons.find((s) => s.id === id);
  showWindows(showBoards(seasonOf(state.seasonId!)));
  $<HTMLInputElement>('#player').value = state.player;
  // Rewards are the player's in every season: followed when the player changes, not by follow().
  followRewards();
  showScopes(null);
  void listScopes().catch(failed);
  $<HTMLTextAreaElement>('#friends').value = state.friends.join(', ');

  select.addEventListener('change', () => {
    state.seasonId = Number(select.value);
    state.at = undefined;
    state.board = undefined;
    showWindows(showBoards(seasonOf(state.seasonId)));
    void listPeriods().catch(failed);
    follow();
  });
  $<HTMLSelectElement>('#board').addEventListener('change', (ev) => {
    state.board = (ev.target as HTMLSelectElement).value || undefined;
    state.at = undefined;
    showWindows(showBoards(seasonOf(state.seasonId!)));
    void listPeriods().catch(failed);
    follow();
  });
  $<HTMLSelectElement>('#window').addEventListener('change', (ev) => {
    state.window = (ev.target as HTMLSelectElement).value as Window;
    state.at = undefined;
    void listPeriods().catch(failed);
    follow();
  });
  $<HTMLSelectElement>('#period').addEventListener('change', (ev) => {
    state.at = (ev.target as HTMLSelectElement).value || undefined;
    follow();
  });
  $<HTMLSelectElement>('#scope').addEventListener('change', (ev) => {
    state.scope = scopeOf((ev.target as HTMLSelectElement).value);
    follow();
  });
  void listPeriods().catch(failed);
  $('#player-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    state.player = $<HTMLInputElement>('#player').value.trim();
    void listScopes().catch(failed);
    followPlayer();
    followRewards();
  });
  $('#friends-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    state.friends = $<HTMLTextAreaElement>('#friends')
      .value.split(/[\s,;]+/)
      .filter(Boolean)
      .slice(0, 1_000);
    saveState();
    turnFriendsPage(null);
  });
  $('#clans tbody').addEventListener('click', (ev) => {
    const group = (ev.target as Element).closest('button')?.closest('tr')?.dataset.group;
    if (group) pickScope(state.scope?.group === group ? undefined : { group }, follow);
  });
  $('#friends-next').addEventListener('click', nextFriendsPage);
  $('#friends-first').addEventListener('click', () => turnFriendsPage(null));
  follow();
}

start().catch(failed);
