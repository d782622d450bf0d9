// The season every bench writes to: what each bench used to define for itself.
import { validateSeasonDefinition, type Season, type SeasonDefinition } from '../src/domain/season.js';
import type { Db } from '../src/postgres/client.js';
import { createSeasonsRepo } from '../src/postgres/seasons-repo.js';

const DAY = 24 * 3600 * 1000;

/**
 * A fresh ACTIVE BEST season (DESC, ORDINAL, up to 1,000,000 points a match) that started at UTC
 * midnight 10 days ago (or at `startsAt`) and lasts 40 days, created as the admin API would.
 */
export async function createBenchSeason(
  db: Db,
  name: string,
  startsAt = new Date(Math.floor(Date.now() / DAY) * DAY - 10 * DAY),
  over: Partial<SeasonDefinition> = {},
): Promise<Season> {
  const def: SeasonDefinition = {
    name,
    startsAt,
    endsAt: new Date(startsAt.getTime() + 40 * DAY),
    scoring: 'BEST',
    order: 'DESC',
    rankStyle: 'ORDINAL',
    maxPointsPerMatch: 1_000_000,
    ...over,
  };
  return createSeasonsRepo(db).insert(def, validateSeasonDefinition(def), 'ACTIVE');
}
