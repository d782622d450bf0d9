// The board page's shared parts (web/page.ts): the client, the view's state (kept in the URL,
// ?season=1&board=kills&window=DAY&player=42&friends=7,9&region=BR), what the view follows, the
// status line and the board every read is on.
import { createLadderClient, type LadderError, type Window } from '../src/client/ladder-client.js';
import { scopeOf } from './page-format.js';

export const client = createLadderClient({ url: new URL('/graphql', location.href).href });
export const $ = <T extends HTMLElement = HTMLElement>(selector: string) => document.querySelector<T>(selector)!;
const params = new URLSearchParams(location.search);
export const state = {
  seasonId: Number(params.get('season')) || (undefined as number | undefined),
  /** One of the season's boards by name; undefined: its first. */
  board: params.get('board') ?? undefined,
  window: (params.get('window') ?? 'SEASON') as Window,
  player: params.get('player') ?? '',
  friends: (params.get('friends') ?? '').split(',').filter(Boolean),
  /** A past day or week (its start, ISO), or undefined: the current one, live. */
  at: params.get('at') ?? undefined,
  /** The region or group every board is ranked within (?region=BR, ?group=wolves); undefined: everyone. */
  scope: scopeOf(
    params.get('region') ? `r:${params.get('region')}` : params.get('group') ? `g:${params.get('group')}` : '',
  ),
};
/** What this view is following: stopped and restarted when the season or board changes. */
export const stops: Array<() => void> = [];

export function saveState(): void {
  const p = new URLSearchParams();
  if (state.seasonId) p.set('season', String(state.seasonId));
  if (state.board) p.set('board', state.board);
  if (state.window !== 'SEASON') p.set('window', state.window);
  if (state.player) p.set('player', state.player);
  if (state.friends.length > 0) p.set('friends', state.friends.join(','));
  if (state.at) p.set('at', state.at);
  if (state.scope?.region) p.set('region', state.scope.region);
  if (state.scope?.group) p.set('group', state.scope.group);
  history.replaceState(null, '', `${location.pathname}${p.size > 0 ? `?${p}` : ''}`);
}

export function status(text: string, live = false): void {
  const el = $('#status');
  el.textContent = text;
  el.classList.toggle('live', live);
}
export const failed = (err: LadderError | Error) =>
  status(`${'code' in err ? `${err.code}: ` : ''}${err.message}; retrying…`);

/** The board every read and subscription of the view is on: season, board, window, period and scope. */
export const boardVars = () => ({
  seasonId: state.seasonId!,
  board: state.board,
  window: state.window,
  at: state.at,
  scope: state.scope,
});
