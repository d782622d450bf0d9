// Seeds one ACTIVE season with one result per player, through ladder's own write path
// (applyResults: PostgreSQL results and standings, then the Redis boards), for the read benches.
import { ensureDatabase } from '../scripts/ensure-database.js';
import type { AcceptedResult } from '../src/domain/board-deltas.js';
import { validateSeasonDefinition, type Season, type SeasonDefinition } from '../src/domain/season.js';
import { createPostgres, migrateDatabase } from '../src/postgres/client.js';
import { createResultsStore } from '../src/postgres/results-store.js';
import { createSeasonsRepo } from '../src/postgres/seasons-repo.js';
import { createBoardWriter } from '../src/redis/board-writer.js';
import { createRedis } from '../src/redis/client.js';
import { createPlayerScopesStore } from '../src/postgres/player-scopes-store.js';
import { applyResults } from '../src/service/apply-results.js';

const DAY = 86_400_000;
const CHUNK = 2_000;

/**
 * Empties the bench's database and Redis (`flush`: its database, or the whole server when the
 * bench owns it), then stores players 1..`players` with `points(p)`, ended `agoMs(p)` ago, and a
 * display name `Player <p>` each. Two chunks at a time over disjoint players: no row is locked by both.
 */
export async function seedBoard(opts: {
  databaseUrl: string;
  redisUrl: string;
  flush: 'db' | 'all';
  name: string;
  players: number;
  points(p: number): number;
  agoMs(p: number): number;
  /** The metadata (JSON text) of player p's result; none when absent. */
  metadata?(p: number): string;
  /**
   * Player p's region and groups (docs/design.md#scopes), stored in player_scopes before any
   * result, so the results go through ingest's scope lookup onto the scope boards as well as the
   * board, as the consumer writes them. None when absent.
   */
  scopes?(p: number): { region: string | null; groups: string[] };
  onProgress?(done: number): void;
}): Promise<Season> {
  await ensureDatabase(opts.databaseUrl);
  await migrateDatabase(opts.databaseUrl);
  const pg = createPostgres(opts.databaseUrl, 4);
  const redis = createRedis(opts.redisUrl);
  try {
    await pg.sql`truncate players, match_results, standings, season_final_standings, blocked_players, player_scopes, seasons cascade`;
    await (opts.flush === 'all' ? redis.flushall() : redis.flushdb());
    const now = Date.now();
    const def: SeasonDefinition = {
      name: opts.name,
      startsAt: new Date(now - 10 * DAY),
      endsAt: new Date(now + 20 * DAY),
      scoring: 'BEST',
      order: 'DESC',
      rankStyle: 'ORDINAL',
      maxPointsPerMatch: 1_000_000,
    };
    const season = await createSeasonsRepo(pg.db).insert(def, validateSeasonDefinition(def), 'ACTIVE');
    if (opts.scopes) {
      for (let first = 1; first <= opts.players; first += 10_000) {
        const ids: number[] = [];
        for (let p = first; p < Math.min(first + 10_000, opts.players + 1); p++) ids.push(p);
        const of = ids.map((p) => opts.scopes!(p));
        await pg.sql`
          insert into player_scopes (player_id, region, groups)
          select id, region, coalesce(string_to_array(nullif(groups, ''), ','), '{}')
          from unnest(${pg.sql.array(ids)}::int8[], ${pg.sql.array(of.map((s) => s.region))}::text[],
                      ${pg.sql.array(of.map((s) => s.groups.join(',')))}::text[]) as t(id, region, groups)`;
      }
    }
    const deps = {
      store: createResultsStore(pg.sql),
      boards: createBoardWriter(redis, 3 * 86_400),
      ...(opts.scopes ? { scopes: createPlayerScopesStore(pg.sql) } : {}),
      seasonOf: () => season,
      now: Date.now,
    };
    let next = 1;
    let done = 0;
    const worker = async () => {
      while (next <= opts.players) {
        const first = next;
        next += CHUNK;
        const chunk: AcceptedResult[] = [];
        for (let p = first; p < Math.min(first + CHUNK, opts.players + 1); p++) {
          chunk.push({
            matchId: `00000000-0000-4000-8000-${p.toString(16).padStart(12, '0')}`,
            playerId: String(p),
            seasonId: season.id,
            points: opts.points(p),
            endedAt: new Date(now - opts.agoMs(p)),
            partition: 0,
            offset: String(p),
            metadata: opts.metadata?.(p) ?? null,
          });
        }
        await applyResults(deps, chunk);
        done += chunk.length;
        opts.onProgress?.(done);
      }
    };
    await Promise.all([worker(), worker()]);
    // applyResults stores results only; names arrive with submitMatchResult (players-repo upsert).
    // Give every seeded player one, or "top with names" would measure joins that find nothing.
    await pg.sql`insert into players (id, display_name)
      select g, 'Player ' || g from generate_series(1, ${opts.players}::int) g`;
    return season;
  } finally {
    redis.disconnect();
    await pg.close();
  }
}
