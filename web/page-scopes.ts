// The board page's scope picker: everyone, the followed player's country, region and clans.
import type { PlayerScopesQuery, ScopeInput } from '../src/client/ladder-client.js';
import { scopeKey, scopeLabel } from './page-format.js';
import { $, client, state } from './page-state.js';

/** The followed player's scopes as last read: the picker offers them again when a clan is clicked. */
let shownScopes: PlayerScopesQuery['playerScopes'] = null;

/**
 * The scope picker offers everyone, the followed player's country and region (a subdivision ranks
 * in its country too) and their clans, and the scope picked (from a shared link, or a player
 * followed before); hidden when that is everyone alone.
 */
export function showScopes(scopes: PlayerScopesQuery['playerScopes']): void {
  shownScopes = scopes;
  const keys = new Set<string>();
  if (scopes?.region) {
    keys.add(`r:${scopes.region.split('-')[0]}`);
    keys.add(`r:${scopes.region}`);
  }
  for (const group of scopes?.groups ?? []) keys.add(`g:${group}`);
  const picked = scopeKey(state.scope);
  if (picked) keys.add(picked);
  const select = $<HTMLSelectElement>('#scope');
  select.replaceChildren(new Option('everyone', ''), ...[...keys].map((k) => new Option(scopeLabel(k), k)));
  select.value = picked;
  $('#scope-picker').hidden = keys.size === 0;
}

/** Reads the followed player's scopes for the picker (they hold across seasons and boards). */
export async function listScopes(): Promise<void> {
  const player = state.player;
  const scopes = player ? await client.playerScopes(player) : null;
  if (player === state.player) showScopes(scopes);
}

/** Ranks every board of the view within `scope` (a clan clicked), the picker showing it; then `follow`. */
export function pickScope(scope: ScopeInput | undefined, follow: () => void): void {
  state.scope = scope;
  showScopes(shownScopes);
  follow();
}
