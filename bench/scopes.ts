// Scenario s of the ingest bench: players with scopes (docs/design.md#scopes).
import type { Sql } from '../src/postgres/client.js';
import type { BenchResult } from './generate.js';

const REGIONS = ['BR', 'US', 'DE', 'FR', 'JP', 'KR', 'GB', 'PL'];

/**
 * Gives every player of the traffic a region (every other one a subdivision of it, so they rank
 * in two region boards) and one of 100 clans: 2.5 scope boards per standing on average.
 */
export async function giveScopes(sql: Sql, traffic: readonly BenchResult[]): Promise<void> {
  const ids = [...new Set(traffic.map((r) => Number(r.playerId)))];
  const region = (id: number) => `${REGIONS[id % REGIONS.length]}${id % 2 === 0 ? '-A1' : ''}`;
  for (let i = 0; i < ids.length; i += 10_000) {
    const page = ids.slice(i, i + 10_000);
    await sql`
      insert into player_scopes (player_id, region, groups)
      select id, region, array[clan] from unnest(${sql.array(page)}::int8[], ${sql.array(page.map(region))}::text[],
                           ${sql.array(page.map((id) => `clan${id % 100}`))}::text[]) as t(id, region, clan)
      on conflict (player_id) do nothing`;
  }
}
