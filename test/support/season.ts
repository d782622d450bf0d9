// A season as the unit tests of the use cases take it: no store behind it.
import { defaultSplit, type Season } from '../../src/domain/season.js';

/** An ACTIVE BEST season (id 7, the default split) with `over` applied. */
export function testSeason(over: Partial<Season> = {}): Season {
  return {
    id: 7,
    name: 's',
    startsAt: new Date(0),
    endsAt: new Date(1e12),
    status: 'ACTIVE',
    scoring: 'BEST',
    order: 'DESC',
    rankStyle: 'ORDINAL',
    maxPointsPerMatch: 10,
    split: defaultSplit('BEST'),
    finalizedAt: null,
    ...over,
  };
}
