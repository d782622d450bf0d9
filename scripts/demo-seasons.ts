// The demo's seasons (scripts/demo.ts): created by its first run and reused by the next ones, and
// its league sprint, a league season that repeats every few minutes (DEMO_LEAGUE_SECONDS), followed
// as each closes and the scheduler creates the next (docs/season-lifecycle.md#repeating-seasons).
import type { App } from '../src/app/app.js';
import { seasonsWithBoards, type Season } from '../src/domain/season.js';
import type { Sql } from '../src/postgres/client.js';
import { createSeason, listSeasons, newSeasonOf, type NewSeason, type SeasonStore } from '../src/service/seasons.js';

const DAY_MS = 24 * 3600 * 1000;

/** The active season with this name, or a new one: rerunning the demo keeps its board. */
async function ensureSeason(store: SeasonStore, def: NewSeason, now: Date) {
  // Seasons only: the rows of a season's further boards carry its name too.
  const active = seasonsWithBoards(await listSeasons(store, 'ACTIVE', now));
  return active.filter((s) => s.name === def.name).at(-1) ?? createSeason(store, def, now);
}

/**
 * Creates (or reuses) the demo seasons: BEST/ORDINAL and SUM/COMPETITION, so both styles show, and
 * a battle royale of five boards (docs/design.md#boards): points, lap_time ascending, royale,
 * ranked by wins, then kills, then who got there first, rating, the latest match's (LAST), and
 * career, total wins then total kills (per-key SUM); a league, with rewards. On a Redis Cluster
 * the first has 3 score-range shards: bounds that split the simulator's players (points about
 * (0.1 + 0.7 x skill)^2 x 10,000) into thirds. And the league sprint (ensureSprint).
 */
export async function demoSeasons(app: App, o: { sharded: boolean; sprintSeconds: number; scheduling: boolean }) {
  const { sharded } = o;
  const now = new Date();
  // Whole seconds, so startsAt reads cleanly in GraphiQL.
  const start = new Date(Math.floor((now.getTime() - 3 * DAY_MS) / 1000) * 1000);
  const best = await ensureSeason(
    app.seasonsRepo,
    {
      name: sharded ? 'Demo season (3 shards)' : 'Demo season',
      startsAt: start,
      endsAt: new Date(start.getTime() + 30 * DAY_MS),
      scoring: 'BEST',
      order: 'DESC',
      rankStyle: 'ORDINAL',
      maxPointsPerMatch: 10_000,
      windows: ['SEASON', 'DAY', 'WEEK', 'MONTH'],
      ...(sharded ? { shards: { bounds: [1_000, 3_000] } } : {}),
    },
    now,
  );
  const sum = await ensureSeason(
    app.seasonsRepo,
    {
      name: 'Demo weekly total',
      startsAt: start,
      endsAt: new Date(start.getTime() + 7 * DAY_MS),
      scoring: 'SUM',
      order: 'DESC',
      rankStyle: 'COMPETITION',
      // As the demo season's: each simulated match counts in both (one submission, seasonIds).
      maxPointsPerMatch: 10_000,
      // The week itself is the season: a daily board beside it, turning over at 04:00 UTC.
      windows: ['SEASON', 'DAY'],
      resetOffsetMinutes: 240,
    },
    now,
  );
  const royale = await ensureSeason(
    app.seasonsRepo,
    newSeasonOf({
      name: 'Demo battle royale league',
      startsAt: start,
      endsAt: new Date(start.getTime() + 30 * DAY_MS),
      boards: [
        { name: 'points', maxValue: 10_000 },
        { name: 'lap_time', order: 'ASC', maxValue: 600_000 },
        {
          name: 'royale',
          keys: [
            { stat: 'wins', max: 1 },
            { stat: 'kills', max: 50 },
          ],
        },
        // A skill rating the game server computes: the latest one counts, up or down (LAST).
        { name: 'rating', scoring: 'LAST', maxValue: 3_000 },
        // A career: total wins, then total kills, each key its own aggregate (per-key SUM).
        {
          name: 'career',
          keys: [
            { stat: 'wins', max: 4_095, aggregate: 'SUM' },
            { stat: 'kills', max: 262_143, aggregate: 'SUM' },
          ],
        },
      ],
      // A league (docs/design.md#leagues): cohorts of 50 per tier, the best 5 up and the worst 5
      // down at its close; and rewards its close grants (docs/design.md#rewards).
      league: {
        name: 'demo-arena',
        tiers: ['Bronze', 'Silver', 'Gold', 'Master'],
        cohortSize: 50,
        promote: 5,
        relegate: 5,
      },
      rewards: [
        { name: 'champion', fromRank: 1, reward: { title: 'Champion', gems: 1000 } },
        { name: 'top_ten_percent', topPercent: 10, reward: { chest: 'gold' } },
        { name: 'daily_best', window: 'DAY', fromRank: 1, toRank: 3, reward: { gems: 50 } },
      ],
    }),
    now,
  );
  const sprint = await ensureSprint(app.seasonsRepo, o.sprintSeconds, now, o.scheduling);
  return { best, sum, royale, sprint };
}

/** The league every season of the sprint series declares: how the demo finds the current one. */
const SPRINT_LEAGUE = 'demo-sprint';

/**
 * The first season of the league sprint: `seconds` long from `start`, repeating (the scheduler
 * creates "#2", "#3", ... as each closes), in a league of cohorts of 20 from Bronze to Master whose
 * best 3 go up and worst 3 down, placed by last sprint's rank; the best of each cohort and the
 * top 3 overall get a reward at each close.
 */
function sprintSeason(start: Date, seconds: number): NewSeason {
  return newSeasonOf({
    name: 'Demo league sprint',
    startsAt: start,
    endsAt: new Date(start.getTime() + seconds * 1000),
    scoring: 'BEST',
    maxPointsPerMatch: 10_000,
    windows: ['SEASON'],
    league: {
      name: SPRINT_LEAGUE,
      tiers: ['Bronze', 'Silver', 'Gold', 'Master'],
      cohortSize: 20,
      promote: 3,
      relegate: 3,
      placement: 'RANK',
    },
    rewards: [
      { name: 'cohort_winner', per: 'COHORT', fromRank: 1, reward: { gems: 100 } },
      { name: 'sprint_podium', fromRank: 1, toRank: 3, reward: { title: 'Sprinter', gems: 500 } },
    ],
    repeats: true,
  });
}

/** The newest ACTIVE season of the sprint league, if any: the one matches go to. */
async function currentSprint(store: SeasonStore, now: Date): Promise<Season | undefined> {
  const active = seasonsWithBoards(await listSeasons(store, 'ACTIVE', now));
  return active.filter((s) => s.league?.name === SPRINT_LEAGUE).at(-1);
}

/**
 * Whether a scheduler will create the successor of `season`, the series' newest: it repeats, was
 * not closed before its end (which ends a series), and is not final yet or was finalized lately
 * enough for the scheduler's pass to see it (service/season-scheduler.ts: 7 days).
 */
function continues(season: Season, now: Date): boolean {
  if (!season.repeats) return false;
  if (!season.finalizedAt) return true;
  return season.finalizedAt >= season.endsAt && now.getTime() - season.finalizedAt.getTime() < 7 * DAY_MS;
}

/**
 * The sprint season to send matches to: the series' ACTIVE one (a rerun demo goes on with it, its
 * length included); none yet (`pending`, the last one) when it ended while the demo was down and
 * this process's scheduler is about to close it and create the next, which followSprint picks up;
 * otherwise a new series, starting now.
 */
async function ensureSprint(
  store: SeasonStore,
  seconds: number,
  now: Date,
  scheduling: boolean,
): Promise<{ season?: Season; pending?: Season }> {
  const active = await currentSprint(store, now);
  if (active) return { season: active };
  const last = seasonsWithBoards(await store.list()).findLast((s) => s.league?.name === SPRINT_LEAGUE);
  if (scheduling && last && continues(last, now)) return { pending: last };
  const start = new Date(Math.floor(now.getTime() / 1000) * 1000);
  return { season: await createSeason(store, sprintSeason(start, seconds), now) };
}

/** "Demo league sprint #3" → 3; the series' first season has no number. */
function sprintNumber(name: string): number {
  return Number(/ #(\d+)$/.exec(name)?.[1] ?? 1);
}

/** What the close of sprint season `seasonId` did: league moves up and down, rewards granted. */
async function closeReport(sql: Sql, seasonId: number) {
  const [row] = await sql<[{ promoted: number; relegated: number; rewards: number }]>`
    select
      (select count(*)::int from league_moves where season_id = ${seasonId} and to_tier > from_tier) as promoted,
      (select count(*)::int from league_moves where season_id = ${seasonId} and to_tier < from_tier) as relegated,
      (select count(*)::int from rewards where season_id = ${seasonId}) as rewards`;
  return row;
}

/**
 * Polls the ACTIVE seasons every `everyMs` for the sprint's newest: when it is another than the
 * one matches go to (the scheduler closed that one and created its successor), `switchTo` moves
 * the simulator to it, and a line says so, with what the last close did. stop() ends it.
 */
export function followSprint(o: {
  app: App;
  current: Season | undefined;
  everyMs: number;
  switchTo(season: Season): Promise<void>;
  say(line: string): void;
}) {
  let current = o.current;
  let running: Promise<void> | undefined;
  let lastError = '';
  async function check(): Promise<void> {
    const next = await currentSprint(o.app.seasonsRepo, new Date());
    if (!next && current) {
      // Closed before its end (closeSeason): the series is over, nothing follows it.
      const last = await o.app.seasonsRepo.get(current.id);
      if (last?.finalizedAt && last.finalizedAt < last.endsAt) {
        o.say(`[demo] league sprint season ${last.id} was closed before its end: the series ends there`);
        current = undefined;
      }
    }
    if (!next || next.id === current?.id) return;
    await o.switchTo(next);
    current = next;
    const started = `[demo] league sprint #${sprintNumber(next.name)} started (season ${next.id})`;
    const previous = next.follows != null ? await o.app.seasonsRepo.get(next.follows) : undefined;
    if (!previous) {
      o.say(`${started}; the simulator sends its matches there`);
      return;
    }
    const r = await closeReport(o.app.pg.sql, previous.id);
    o.say(
      `${started}; sprint #${sprintNumber(previous.name)} closed: ` +
        `${r.promoted} promoted, ${r.relegated} relegated, ${r.rewards} rewards`,
    );
  }
  const timer = setInterval(() => {
    running ??= check()
      .catch((err: unknown) => {
        // Said once per distinct error: the next poll tries again.
        const line = `[demo] following the league sprint: ${(err as Error).message ?? String(err)}`;
        if (line !== lastError) o.say((lastError = line));
      })
      .finally(() => {
        running = undefined;
      });
  }, o.everyMs);
  return {
    async stop(): Promise<void> {
      clearInterval(timer);
      await running;
    },
  };
}
