// The live board page (web/index.html): pick a season, one of its boards and a window; the top 100 follows
// topChanged with each row's movement since the previous update; a searched player's entry and
// neighbours follow rankChanged, under their rank line (the SEASON board's daily snapshots, then
// now) and percentile; friends compare a pasted list of up to 1,000 ids, a page at a time; the
// top's heading tells the board's size and what the top 1,000 takes. Every board can be ranked
// within a scope, the followed player's country, region or clan (playerScopes): then each entry
// shows its global rank beside its rank in the scope. The board's clans, ranked by their members'
// total, sit beside the top, read again as it changes; clicking one ranks the board within it.
// The followed player's rewards (of closed seasons and ended periods) are listed, and each new
// one appears as rewardGranted pushes it. State lives in the URL
// (?season=1&board=kills&window=DAY&player=42&friends=7,9&region=BR) so a view can be shared or
// reloaded. A multi-key board shows each entry's keys (wins · kills · time) where a board of one
// stat shows points.
// Plain DOM on the typed client; compiled by `npm run build:web` (tsconfig.web.json).
import {
  createLadderClient,
  type Entry,
  type GroupStanding,
  type LadderError,
  type PlayerScopesQuery,
  type Reward,
  type ScopeInput,
  type SeasonsQuery,
  type Window,
} from '../src/client/ladder-client.js';

const client = createLadderClient({ url: new URL('/graphql', location.href).href });
const $ = <T extends HTMLElement = HTMLElement>(selector: string) => document.querySelector<T>(selector)!;
const params = new URLSearchParams(location.search);
const state = {
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
const stops: Array<() => void> = [];
/** The searched player's subscription: restarted when the player changes too. */
let stopPlayer = () => {};

function saveState(): void {
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

// ---- scopes ----
/** A scope as the picker's value: `r:BR`, `r:BR-SP`, `g:wolves`; '' for everyone. */
function scopeKey(scope: ScopeInput | undefined): string {
  if (scope?.region) return `r:${scope.region}`;
  return scope?.group ? `g:${scope.group}` : '';
}

/** The scope of a picker value (scopeKey's inverse); undefined: everyone. */
function scopeOf(key: string): ScopeInput | undefined {
  if (key.startsWith('r:')) return { region: key.slice(2) };
  return key.startsWith('g:') ? { group: key.slice(2) } : undefined;
}

/** "country BR", "region BR-SP", "clan wolves": a subdivision's code is its country's and a suffix. */
function scopeLabel(key: string): string {
  const scope = scopeOf(key);
  if (scope?.region) return `${scope.region.includes('-') ? 'region' : 'country'} ${scope.region}`;
  return scope?.group ? `clan ${scope.group}` : 'everyone';
}

/** The followed player's scopes as last read: the picker offers them again when a clan is clicked. */
let shownScopes: PlayerScopesQuery['playerScopes'] = null;

/**
 * The scope picker offers everyone, the followed player's country and region (a subdivision ranks
 * in its country too) and their clans, and the scope picked (from a shared link, or a player
 * followed before); hidden when that is everyone alone.
 */
function showScopes(scopes: PlayerScopesQuery['playerScopes']): void {
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
async function listScopes(): Promise<void> {
  const player = state.player;
  const scopes = player ? await client.playerScopes(player) : null;
  if (player === state.player) showScopes(scopes);
}

/** Ranks every board of the view within `scope` (a clan clicked), the picker showing it. */
function pickScope(scope: ScopeInput | undefined): void {
  state.scope = scope;
  showScopes(shownScopes);
  follow();
}

function status(text: string, live = false): void {
  const el = $('#status');
  el.textContent = text;
  el.classList.toggle('live', live);
}
const failed = (err: LadderError | Error) => status(`${'code' in err ? `${err.code}: ` : ''}${err.message}; retrying…`);

/** Movement from `before` (the previous rank, undefined when new) to `rank`: text and class. */
function movement(rank: number, before: number | undefined, isNew: boolean): { text: string; cls: string } {
  if (before === undefined) return isNew ? { text: 'new', cls: 'new' } : { text: '', cls: '' };
  if (before > rank) return { text: `▲${before - rank}`, cls: 'up' };
  if (before < rank) return { text: `▼${rank - before}`, cls: 'down' };
  return { text: '', cls: '' };
}

/** A JSON value in a cell: a string as it is, anything else as JSON. */
const valueText = (v: unknown) => (typeof v === 'object' ? JSON.stringify(v) : String(v));
/** At most 40 characters: the whole JSON goes in the tooltip. */
const clip = (text: string) => (text.length > 40 ? `${text.slice(0, 39)}…` : text);

/** An entry's metadata in a cell: its top-level values (`Falcon · red`), the whole JSON as the tooltip. */
function metadataText(metadata: Record<string, unknown> | null | undefined): string {
  return metadata ? clip(Object.values(metadata).map(valueText).join(' · ')) : '';
}

function row(e: Entry, move = { text: '', cls: '' }): HTMLTableRowElement {
  const tr = document.createElement('tr');
  tr.dataset.player = e.playerId;
  tr.dataset.rank = String(e.rank);
  if (move.cls === 'new') tr.className = 'new';
  else if (move.cls) tr.className = 'changed';
  if (e.playerId === state.player) tr.classList.add('me');
  // Within a scope, the rank on the whole board beside the rank in the scope.
  const global = state.scope ? [['global', e.globalRank === null ? '' : `#${count(e.globalRank)} global`]] : [];
  if (state.scope && e.globalRank !== null) tr.dataset.globalRank = String(e.globalRank);
  for (const [cls, text] of [
    ['rank', `#${e.rank}`],
    ...global,
    [`move ${move.cls}`, move.text],
    ['name', e.player?.displayName ?? e.playerId],
    ['points', e.keys ? e.keys.join(' · ') : String(e.points)],
  ]) {
    const td = document.createElement('td');
    td.className = cls!;
    td.textContent = text!;
    if (cls === 'name') td.title = `player ${e.playerId}`;
    tr.append(td);
  }
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

function showTop(entries: Entry[]): void {
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

/** The board every read and subscription of the view is on: season, board, window, period and scope. */
const boardVars = () => ({
  seasonId: state.seasonId!,
  board: state.board,
  window: state.window,
  at: state.at,
  scope: state.scope,
});

const CUTOFF_PLACE = 1_000;
const count = (n: number) => n.toLocaleString('en-US');
/** "0.37", "4.2", "100": two significant digits, enough to tell a top 0.4% from a top 0.5%. */
const topPercent = (p: number) => String(Number(p.toPrecision(2)));

// ---- clans ----
let clansTimer: ReturnType<typeof setTimeout> | undefined;

/**
 * Reads the clans again half a second after a top update, at most twice a second however often
 * it changes: a clan's total moves with its members' points, which is when the top moves too
 * (group boards have no push of their own).
 */
function refreshClans(): void {
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
async function showClans(): Promise<void> {
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

// ---- rewards ----
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
function followRewards(): void {
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

// ---- a player ----
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

async function showPlayer(): Promise<void> {
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

// ---- friends ----
const FRIENDS_PAGE = 20;
/** The friends page shown (null: the first), and where the next one starts (null: none). */
let friendsAfter: string | null = null;
let friendsNext: string | null = null;

async function showFriends(): Promise<void> {
  const page =
    state.friends.length === 0
      ? null
      : await client.friendsPage({
          ...boardVars(),
          playerIds: state.friends,
          first: FRIENDS_PAGE,
          after: friendsAfter,
        });
  $('#friends-table tbody').replaceChildren(...(page?.entries ?? []).map((e) => row(e)));
  $('#friends-count').textContent = page ? `${page.ranked} of ${state.friends.length} ranked` : '';
  friendsNext = page?.hasNextPage ? page.endCursor : null;
  $('#friends-next').hidden = friendsNext === null;
  $('#friends-first').hidden = friendsAfter === null;
}

function turnFriendsPage(after: string | null): void {
  friendsAfter = after;
  void showFriends().catch(failed);
}

/** (Re)starts every live part of the view for the current season and board. */
function follow(): void {
  for (const stop of stops.splice(0)) stop();
  saveState();
  if (!state.seasonId) return;
  topRanks = undefined;
  lastMoves = new Map();
  clearTimeout(sizeTimer);
  sizeTimer = undefined;
  $('#size').textContent = '';
  clearTimeout(clansTimer);
  clansTimer = undefined;
  void showClans().catch(failed);
  for (const th of document.querySelectorAll<HTMLElement>('th.global')) th.hidden = !state.scope;
  // A past period is read, not followed: its board changes only if results for it still arrive.
  const past = state.at !== undefined;
  const readTop = () =>
    client.top({ ...boardVars(), limit: 100, metadata: true }).then((b) => {
      status(`${state.window.toLowerCase()} of ${state.at!.slice(0, 10)}`);
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

/** (Re)starts the searched player's part: their entry and neighbours now, then as they move. */
function followPlayer(): void {
  stopPlayer();
  stopPlayer = () => {};
  saveState();
  playerRank = undefined;
  snapshots = undefined;
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

const WINDOW_LABELS: Record<Window, string> = {
  SEASON: 'season',
  MONTH: 'this month',
  WEEK: 'this week',
  DAY: 'today',
};

type SeasonInfo = SeasonsQuery['seasons'][number];

/**
 * The board picker offers the season's boards (Season.boards: another name falls back to its
 * first), the heading names what the board ranks; returns the windows that board keeps.
 */
function showBoards(season: SeasonInfo | undefined): readonly Window[] {
  const boards = season?.boards ?? [];
  if (!boards.some((b) => b.name === state.board)) state.board = undefined;
  const board = boards.find((b) => b.name === state.board) ?? boards[0];
  $<HTMLSelectElement>('#board').replaceChildren(...boards.map((b) => new Option(b.name.replaceAll('_', ' '), b.name)));
  $<HTMLSelectElement>('#board').value = board?.name ?? '';
  $('#board-picker').hidden = boards.length < 2;
  const ranks = board?.keys.length ? board.keys.map((k) => k.stat).join(' · ') : (board?.stat ?? 'points');
  for (const th of document.querySelectorAll('th.points')) th.textContent = ranks.replaceAll('_', ' ');
  return board?.windows ?? ['SEASON'];
}

/** The window picker offers the windows the board keeps (Board.windows); another one falls back to SEASON. */
function showWindows(windows: readonly Window[]): void {
  if (!windows.includes(state.window)) state.window = 'SEASON';
  const order: Window[] = ['SEASON', 'MONTH', 'WEEK', 'DAY'];
  $<HTMLSelectElement>('#window').replaceChildren(
    ...order.filter((w) => windows.includes(w)).map((w) => new Option(WINDOW_LABELS[w], w)),
  );
  $<HTMLSelectElement>('#window').value = state.window;
}

/** The past days, weeks or months of the board that hold standings (Season.periods), for the period picker. */
async function listPeriods(): Promise<void> {
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
    if (group) pickScope(state.scope?.group === group ? undefined : { group });
  });
  $('#friends-next').addEventListener('click', () => turnFriendsPage(friendsNext));
  $('#friends-first').addEventListener('click', () => turnFriendsPage(null));
  follow();
}

start().catch(failed);
