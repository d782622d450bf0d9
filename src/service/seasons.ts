import { badInput, seasonNotFound } from '../domain/errors.js';
import {
  seasonStatusAt,
  validateSeasonDefinition,
  type ScoreSplit,
  type Season,
  type SeasonDefinition,
  type SeasonStatus,
} from '../domain/season.js';

/** Where seasons are stored (PostgreSQL). */
export interface SeasonStore {
  get(id: number): Promise<Season | undefined>;
  list(status?: SeasonStatus): Promise<Season[]>;
  insert(def: SeasonDefinition, split: ScoreSplit, status: SeasonStatus): Promise<Season>;
  setStatus(id: number, status: SeasonStatus): Promise<Season | undefined>;
}

/** A season with the status it has at `now` (the stored one lags until the scheduler runs). */
export function withCurrentStatus(season: Season, now: Date): Season {
  const status = seasonStatusAt(season, now);
  return status === season.status ? season : { ...season, status };
}

/** Validates and stores a new season; its status follows from its times. */
export async function createSeason(store: SeasonStore, def: SeasonDefinition, now: Date): Promise<Season> {
  const split = validateSeasonDefinition(def);
  const status = seasonStatusAt({ status: 'SCHEDULED', startsAt: def.startsAt, endsAt: def.endsAt }, now);
  if (status === 'CLOSED') throw badInput('endsAt', 'endsAt is in the past');
  return store.insert(def, split, status);
}

/** Lists seasons; a status filter applies to the status at `now`. */
export async function listSeasons(store: SeasonStore, status: SeasonStatus | undefined, now: Date): Promise<Season[]> {
  const all = (await store.list()).map((s) => withCurrentStatus(s, now));
  return status ? all.filter((s) => s.status === status) : all;
}

/** The season, or SEASON_NOT_FOUND. */
export async function requireSeason(store: SeasonStore, id: number): Promise<Season> {
  const season = await store.get(id);
  if (!season) throw seasonNotFound(id);
  return season;
}
