// Repeating seasons (docs/season-lifecycle.md#repeating-seasons): once a season that repeats is
// final, the scheduler creates the next one, with the same boards, rules, rewards and league,
// starting where it ended. A league's next season places its players by the tiers the close
// wrote, so the next one is created only after the close (never beside it).
import type { Season, SeasonDefinition } from '../domain/season.js';
import { createSeason, type NewSeason, type SeasonStore } from './seasons.js';

/** The name of the season after `name`: "Ranked #7" → "Ranked #8", "Ranked" → "Ranked #2". */
export function nextName(name: string): string {
  const numbered = /^(.*) #(\d+)$/.exec(name);
  return numbered ? `${numbered[1]} #${Number(numbered[2]) + 1}` : `${name} #2`;
}

/**
 * The definition of a board for its season's successor: the same rules, shifted in time. A board's
 * shard bounds are kept (new hash tags are placed for the new season's keys).
 */
function boardAfter(board: Season, startsAt: Date, endsAt: Date, name: string): SeasonDefinition {
  return {
    name,
    startsAt,
    endsAt,
    scoring: board.scoring,
    order: board.order,
    rankStyle: board.rankStyle,
    maxPointsPerMatch: board.maxPointsPerMatch,
    split: board.split,
    board: board.board,
    stat: board.stat,
    ...(board.keys ? { keys: board.keys } : {}),
    ...(board.shards ? { shardBounds: [...board.shards.bounds] } : {}),
    ...(board.windows ? { windows: board.windows } : {}),
    ...(board.resetOffsetMinutes ? { resetOffsetMinutes: board.resetOffsetMinutes } : {}),
    ...(board.periodHours ? { periodHours: board.periodHours } : {}),
    ...(board.groupBestOf ? { groupBestOf: board.groupBestOf } : {}),
    ...(board.league ? { league: board.league } : {}),
  };
}

/**
 * The season that follows `season`: as long, starting at its end, or at the first whole step of its
 * length after that which has not ended by `now` (a scheduler down for longer than a season skips
 * the seasons it missed rather than creating them already over).
 */
export function successorOf(season: Season, now: Date): NewSeason {
  const length = season.endsAt.getTime() - season.startsAt.getTime();
  const behind = Math.max(0, Math.floor((now.getTime() - season.endsAt.getTime()) / length));
  const startsAt = new Date(season.endsAt.getTime() + behind * length);
  const endsAt = new Date(startsAt.getTime() + length);
  const name = nextName(season.name);
  return {
    ...boardAfter(season, startsAt, endsAt, name),
    ...(season.rewards?.length ? { rewards: season.rewards } : {}),
    repeats: true,
    follows: season.id,
    boards: (season.boards ?? []).map((b) => boardAfter(b, startsAt, endsAt, name)),
  };
}

/**
 * Creates the successor of each final season among `seasons` that repeats and has none yet (the
 * scheduler's pass: it holds the cluster-wide lock, and `seasons.follows` is unique besides). A
 * season finalized before its end (an admin closed it early) ends its series. Returns the new
 * seasons.
 */
export async function rollOver(store: SeasonStore, seasons: readonly Season[], now: Date): Promise<Season[]> {
  const created: Season[] = [];
  for (const season of seasons) {
    if (!season.repeats || season.parentId != null || !season.finalizedAt) continue;
    if (season.finalizedAt < season.endsAt) continue;
    if ((await store.successorOf(season.id)) !== undefined) continue;
    const full = (await store.get(season.id)) ?? season;
    created.push(await createSeason(store, successorOf(full, now), now));
  }
  return created;
}
