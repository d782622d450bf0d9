// The board page's rewards panel: the followed player's rewards (of closed seasons and ended
// periods), newest first, each new one appearing as rewardGranted pushes it.
import type { Reward } from '../src/client/ladder-client.js';
import { clip, scopeKey, scopeLabel, valueText } from './page-format.js';
import { $, client, failed, state } from './page-state.js';

const REWARDS_SHOWN = 20;
/** The followed player's rewards by key: read when they are followed, then each push merged in. */
type PlayerRewards = { player: string; read: boolean; byKey: Map<string, Reward> };
let rewards: PlayerRewards = { player: '', read: false, byKey: new Map() };
let stopRewards = () => {};

/**
 * (Re)starts the rewards panel for the followed player: rewardGranted first, then the list, so a
 * reward granted in between is in one or the other (or both: they merge by key). The list is not
 * read again: a reward changes only when the game server claims it.
 */
export function followRewards(): void {
  stopRewards();
  stopRewards = () => {};
  const mine: PlayerRewards = { player: state.player, read: false, byKey: new Map() };
  rewards = mine;
  // A reply for a player no longer followed lands in a map no longer shown.
  const show = () => (mine === rewards ? showRewards() : undefined);
  if (mine.player) {
    stopRewards = client.rewardGranted(
      mine.player,
      (r) => {
        mine.byKey.set(r.key, r);
        show();
      },
      failed,
    );
    void client.rewards(mine.player, { first: REWARDS_SHOWN }).then((list) => {
      for (const r of list) mine.byKey.set(r.key, r);
      mine.read = true;
      show();
    }, failed);
  }
  show();
}

/** Newest first, the rewards of one close (granted at the same instant) by key: as rewards() lists them. */
function showRewards(): void {
  const shown = [...rewards.byKey.values()]
    .sort((a, b) => b.grantedAt.localeCompare(a.grantedAt) || (a.key < b.key ? -1 : 1))
    .slice(0, REWARDS_SHOWN);
  $('#rewards tbody').replaceChildren(...shown.map(rewardRow));
  $('#rewards-none').hidden = !rewards.read || shown.length > 0;
  $('#rewards-view').hidden = !rewards.player;
}

function rewardRow(r: Reward): HTMLTableRowElement {
  const tr = document.createElement('tr');
  tr.dataset.key = r.key;
  tr.dataset.rule = r.rule;
  const within = r.scope ? ` in ${scopeLabel(scopeKey(r.scope))}` : '';
  for (const [cls, text] of [
    ['rule', r.rule.replaceAll('_', ' ')],
    [
      'reward',
      clip(
        Object.entries(r.reward)
          .map(([k, v]) => `${k}: ${valueText(v)}`)
          .join(' · '),
      ),
    ],
    ['rank', `#${r.rank}${within}`],
    [r.claimedAt ? 'claimed' : 'unclaimed', r.claimedAt ? 'claimed' : 'unclaimed'],
  ]) {
    const td = document.createElement('td');
    td.className = cls!;
    td.textContent = text!;
    tr.append(td);
  }
  // Where it came from under the rule, small (as an entry's metadata under a name): the season's
  // board, and the day, week or month of a period's rule (2026-W49).
  const from = document.createElement('div');
  from.className = 'meta';
  from.textContent = [`season #${r.seasonId}`, r.board.replaceAll('_', ' '), r.period].filter(Boolean).join(' · ');
  tr.querySelector('.rule')!.append(from);
  tr.querySelector<HTMLElement>('.reward')!.title = JSON.stringify(r.reward);
  if (r.claimedAt) tr.querySelector<HTMLElement>('.claimed')!.title = `claimed ${r.claimedAt}`;
  return tr;
}
