// The board page's "My league" panel (#league-view in web/index.html), shown while a player is
// followed in a league season (Season.league): their tier, cohort, rank in the cohort and zone
// (what the close would do with them now), the cohort's top 10 (and their own row below it when
// they are further down), or "not placed yet" before their first result (leagueStanding null).
// Live as the page's other panels are, by subscriptions: before the player is placed, rankChanged
// on the season's board (its first push: they have a result, so a cohort); once placed, topChanged
// and rankChanged within `scope: { cohortOf: player }`. Each push is a cue to read leagueStanding
// again (one read at a time; a cue during a read reads once more after it), so the rows, the rank
// and the zone shown are always of one read.
import type { LadderClient, LadderError, LeagueStanding } from '../src/client/ladder-client.js';
import { appendCells } from './entry-cells.js';

type League = NonNullable<Awaited<ReturnType<LadderClient['league']>>>;
type CohortEntry = NonNullable<NonNullable<LeagueStanding>['leaderboard']['entry']>;

/** Rows of the cohort shown: its top. The player's own row is added below when further down. */
const SHOWN = 10;
/** The most a topChanged follows: a cohort of up to 100 is followed whole (a newcomer moves the zones). */
const FOLLOWED = 100;

const ZONES = {
  PROMOTION: { text: 'promotion ▲', cls: 'promotion' },
  STAY: { text: 'stay', cls: 'stay' },
  RELEGATION: { text: 'relegation ▼', cls: 'relegation' },
} as const;

const el = <T extends HTMLElement = HTMLElement>(selector: string) => document.querySelector<T>(selector)!;

/** What one (season, player) view of the panel follows; replaced when either changes. */
interface View {
  seasonId: number;
  player: string;
  league?: League;
  stops: Array<() => void>;
  placed: boolean;
  reading: boolean;
  again: boolean;
}

/** The panel, on the page's client; `failed` shows an error in the page's status line. */
export function createLeaguePanel(client: LadderClient, failed: (err: LadderError | Error) => void) {
  let current: View | undefined;

  function stop(): void {
    for (const s of current?.stops.splice(0) ?? []) s();
    current = undefined;
    el('#league-view').hidden = true;
  }

  /** Reads the standing again, or once more after the read under way. */
  function refresh(view: View): void {
    if (view.reading) {
      view.again = true;
      return;
    }
    view.reading = true;
    void client
      .leagueStanding({ seasonId: view.seasonId, playerId: view.player, limit: SHOWN })
      .then((standing) => {
        if (view !== current) return;
        show(view, standing);
        if (standing && !view.placed) followCohort(view);
      }, failed)
      .finally(() => {
        view.reading = false;
        if (view.again && view === current) {
          view.again = false;
          refresh(view);
        }
      });
  }

  /** Placed (a cohort is fixed for the season): the cohort's top and the player's rank in it, as cues. */
  function followCohort(view: View): void {
    view.placed = true;
    for (const s of view.stops.splice(0)) s();
    const scope = { cohortOf: view.player };
    const cue = () => refresh(view);
    const limit = Math.min(view.league!.cohortSize, FOLLOWED);
    view.stops.push(
      client.topChanged({ seasonId: view.seasonId, scope, limit }, cue, failed),
      client.rankChanged({ seasonId: view.seasonId, scope, playerId: view.player }, cue, failed),
    );
  }

  function show(view: View, standing: LeagueStanding): void {
    const league = view.league!;
    const summary = el('#league-standing');
    el('#league-name').textContent = league.name;
    el('#league-none').hidden = standing !== null;
    summary.hidden = standing === null;
    el('#league-rules').hidden = standing === null;
    el('#league-view').hidden = false;
    if (!standing) {
      for (const key of ['tier', 'cohort', 'rank', 'zone']) delete summary.dataset[key];
      el('#league-table tbody').replaceChildren();
      return;
    }
    const { tier, tierIndex, cohort, zone, leaderboard } = standing;
    const me = leaderboard.entry;
    Object.assign(summary.dataset, { tier, cohort: String(cohort), rank: String(me?.rank ?? ''), zone: zone ?? '' });
    const badge = document.createElement('span');
    badge.className = `zone ${zone ? ZONES[zone].cls : ''}`;
    badge.textContent = zone ? ZONES[zone].text : 'no rank yet';
    const name = document.createElement('strong');
    name.className = 'tier';
    name.textContent = tier;
    const where = me ? ` · cohort ${cohort} · #${me.rank} of ${leaderboard.size} ` : ` · cohort ${cohort} `;
    summary.replaceChildren(name, where, badge);
    // What the close does in this tier: the best move up, the worst down (not past either end).
    const rules = [
      tierIndex < league.tiers.length - 1 && league.promote > 0
        ? `the best ${league.promote} move up to ${league.tiers[tierIndex + 1]}`
        : '',
      tierIndex > 0 && league.relegate > 0 ? `the worst ${league.relegate} down to ${league.tiers[tierIndex - 1]}` : '',
    ].filter(Boolean);
    el('#league-rules').textContent = rules.length > 0 ? `At the close ${rules.join(', ')}.` : '';
    const rows = leaderboard.top.map((e) => cohortRow(e, view.player));
    if (me && !leaderboard.top.some((e) => e.playerId === me.playerId)) {
      const mine = cohortRow(me, view.player);
      mine.classList.add('gap');
      rows.push(mine);
    }
    el('#league-table tbody').replaceChildren(...rows);
  }

  return {
    /**
     * Follows `player` in `seasonId` when it is a league season (hidden otherwise, and without a
     * player). The same season and player again: nothing changes (the page restarts its views
     * when the board or window changes; the league's board is the season's first, SEASON).
     */
    follow(seasonId: number | undefined, player: string): void {
      if (current && current.seasonId === seasonId && current.player === player) return;
      stop();
      if (!seasonId || !player) return;
      const view: View = { seasonId, player, stops: [], placed: false, reading: false, again: false };
      current = view;
      void client.league(seasonId).then((league) => {
        if (view !== current || !league) return;
        view.league = league;
        // Until placed, the player's first result is the cue: their rank on the season's board.
        view.stops.push(client.rankChanged({ seasonId, playerId: player }, () => refresh(view), failed));
        refresh(view);
      }, failed);
    },
  };
}

function cohortRow(e: CohortEntry, player: string): HTMLTableRowElement {
  const tr = document.createElement('tr');
  tr.dataset.player = e.playerId;
  tr.dataset.rank = String(e.rank);
  if (e.playerId === player) tr.classList.add('me');
  appendCells(tr, e.playerId, [
    ['rank', `#${e.rank}`],
    ['name', e.player?.displayName ?? e.playerId],
    ['points', e.keys ? e.keys.join(' · ') : String(e.points)],
  ]);
  return tr;
}
