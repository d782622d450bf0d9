// The console's players page: find a player by id or name, then their scopes, blocks and hides,
// standings (stored points and the public rank: none while hidden) on each open season's current
// boards, latest results; and the actions, each asking for a season and a reason: block, unblock,
// hide pending review, show again, remove results (all, or one match from the results list); and
// their region and groups (queued: ingest applies them in order with the player's results).
import { button, call, row, when } from './console-api.js';

type Say = (text: string, error?: boolean) => void;

interface Found {
  playerId: string;
  name: string | null;
}

interface PlayerView {
  playerId: string;
  name: string | null;
  scopes: { region: string | null; groups: string[] } | null;
  moderation: Array<{ seasonId: number; state: string; reason: string; since: string }>;
  standings: Array<{
    seasonId: number;
    seasonName: string;
    board: string;
    window: string;
    period: string;
    points: number;
    achievedAt: string;
    rank: number | null;
  }>;
  recentResults: Array<{ boardId: number; matchId: string; points: number; endedAt: string }>;
}

const $ = <T extends HTMLElement>(sel: string) => document.querySelector<T>(sel)!;
let shown: string | undefined;

function tableRows(sel: string, rows: HTMLTableRowElement[]): void {
  $<HTMLTableSectionElement>(`${sel} tbody`).replaceChildren(...rows);
}

/** The season and reason of an action, from the page's action form. */
function actionInput(say: Say): { seasonId: number; reason: string } | undefined {
  const seasonId = Number($<HTMLInputElement>('#player-season').value);
  const reason = $<HTMLInputElement>('#player-reason').value.trim();
  if (!Number.isInteger(seasonId) || seasonId < 1 || reason === '') {
    say('Give the season id and a reason first.', true);
    return undefined;
  }
  return { seasonId, reason };
}

function act(say: Say, path: string, extra: Record<string, unknown> = {}, done = 'Done.'): void {
  const input = actionInput(say);
  if (!input || !shown) return;
  const id = shown;
  call('POST', `/players/${id}/${path}`, { ...input, ...extra })
    .then(() => showPlayer(say, id))
    .then(
      () => say(done),
      (err: Error) => say(err.message, true),
    );
}

async function showPlayer(say: Say, playerId: string): Promise<void> {
  const p = await call<PlayerView>('GET', `/players/${playerId}`);
  shown = p.playerId;
  $('#player-detail').hidden = false;
  $('#player-title').textContent = `${p.name ?? '(no name)'} · ${p.playerId}`;
  const scopes = p.scopes ? [p.scopes.region ?? '', ...p.scopes.groups].filter(Boolean).join(', ') : '';
  $('#player-scopes').textContent = scopes ? `Scopes: ${scopes}` : 'No scopes.';
  tableRows(
    '#player-moderation',
    p.moderation.map((m) => row([m.seasonId, m.state, m.reason, when(m.since)])),
  );
  tableRows(
    '#player-standings',
    p.standings.map((s) =>
      row([
        `${s.seasonId} ${s.seasonName}`,
        s.board,
        s.period ? `${s.window} ${s.period}` : s.window,
        s.points,
        when(s.achievedAt),
        s.rank ?? 'not shown',
      ]),
    ),
  );
  tableRows(
    '#player-results',
    p.recentResults.map((r) =>
      row(
        [r.boardId, r.matchId, r.points, when(r.endedAt)],
        button('Remove', () => {
          if (confirm(`Remove match ${r.matchId} of player ${p.playerId}?`))
            act(say, 'remove', { matchId: r.matchId }, 'Result removed.');
        }),
      ),
    ),
  );
}

export async function showPlayers(say: Say): Promise<void> {
  if (shown) await showPlayer(say, shown);
}

export function setUpPlayers(say: Say): void {
  $<HTMLFormElement>('#player-search').addEventListener('submit', (e) => {
    e.preventDefault();
    const q = $<HTMLInputElement>('#player-q').value.trim();
    call<Found[]>('GET', `/players?q=${encodeURIComponent(q)}`).then(
      (found) => {
        tableRows(
          '#player-found',
          found.map((f) =>
            row(
              [f.playerId, f.name ?? ''],
              button('Open', () => void showPlayer(say, f.playerId)),
            ),
          ),
        );
        if (found.length === 1) return showPlayer(say, found[0]!.playerId);
        if (found.length === 0) say(`No player matches "${q}".`, true);
      },
      (err: Error) => say(err.message, true),
    );
  });
  const actions: Array<[string, string, string]> = [
    ['#player-hide', 'hide', 'Hidden from the boards pending review.'],
    ['#player-unhide', 'unhide', 'Shown on the boards again.'],
    ['#player-block', 'block', 'Blocked: later results are refused.'],
    ['#player-unblock', 'unblock', 'Unblocked.'],
  ];
  for (const [sel, path, done] of actions) $(sel).addEventListener('click', () => act(say, path, {}, done));
  $<HTMLFormElement>('#player-scopes-form').addEventListener('submit', (e) => {
    e.preventDefault();
    if (!shown) return;
    const id = shown;
    const region = $<HTMLInputElement>('#player-region').value.trim();
    const groups = $<HTMLInputElement>('#player-groups')
      .value.split(',')
      .map((g) => g.trim())
      .filter(Boolean);
    call('POST', `/players/${id}/scopes`, { region, groups }).then(
      () => say("Scopes queued: ingest applies them in order with the player's results."),
      (err: Error) => say(err.message, true),
    );
  });
  $('#player-remove-all').addEventListener('click', () => {
    if (confirm('Remove every result of this player in the season?')) act(say, 'remove', {}, 'Results removed.');
  });
}
