// After the timed part: do the scenarios agree, and what do the boards cost in Redis? The three
// seasons got the same traffic with the same start time, so their standings and boards must be
// identical; a disagreement means a scenario measured something other than the work it claims.
import type { Redis } from 'ioredis';
import type { Sql } from '../src/postgres/client.js';
import { boardKey } from '../src/redis/keys.js';
import { seasonBoard } from '../src/domain/board.js';

/** Every Redis key of a season (boards, and anything else under its hash tag). */
export async function seasonKeys(redis: Redis, seasonId: number): Promise<string[]> {
  // `{` and `}` are not glob characters, and the `}` after the id keeps s1 from matching s12.
  const pattern = `${boardKey(seasonBoard({ id: seasonId }))}*`.replace(/[\\[\]?]/g, (c) => `\\${c}`);
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return keys.sort();
}

/** UNLINK, not DEL: freeing a large ZSET in the foreground blocks the shared Redis (docs/design.md#measured-facts). */
export async function unlinkSeason(redis: Redis, seasonId: number): Promise<number> {
  const keys = await seasonKeys(redis, seasonId);
  return keys.length === 0 ? 0 : redis.unlink(...keys);
}

/** The boards of a season: its keys holding a ZSET (not the versions hash). */
async function boardKeysOf(redis: Redis, seasonId: number): Promise<string[]> {
  const keys = await seasonKeys(redis, seasonId);
  const types = await Promise.all(keys.map((k) => redis.type(k)));
  return keys.filter((_, i) => types[i] === 'zset');
}

/** Board contents keyed by the part of the key after the season tag, so seasons compare. */
async function boardsOf(redis: Redis, seasonId: number): Promise<Map<string, string>> {
  const tag = boardKey(seasonBoard({ id: seasonId }));
  const out = new Map<string, string>();
  for (const key of await boardKeysOf(redis, seasonId)) {
    const flat = await redis.zrange(key, 0, -1, 'WITHSCORES');
    for (let i = 0; i < flat.length; i += 2) out.set(`${key.slice(tag.length)}|${flat[i]}`, flat[i + 1]!);
  }
  return out;
}

/** Entries of board `b` missing from, or scored differently than, board `a` (and vice versa). */
export async function boardDifferences(redis: Redis, a: number, b: number): Promise<number> {
  const [x, y] = await Promise.all([boardsOf(redis, a), boardsOf(redis, b)]);
  let diff = 0;
  for (const [k, v] of x) if (y.get(k) !== v) diff++;
  for (const k of y.keys()) if (!x.has(k)) diff++;
  return diff;
}

/** Standings rows of season `b` that differ from season `a`'s (either side missing counts). */
export async function standingsDifferences(sql: Sql, a: number, b: number): Promise<number> {
  const [row] = await sql<{ n: string }[]>`
    select count(*) as n from
      (select * from standings where season_id = ${a}) x
      full join (select * from standings where season_id = ${b}) y
        on x."window" = y."window" and x.period = y.period and x.player_id = y.player_id
    where x.player_id is null or y.player_id is null
       or x.points <> y.points or x.achieved_at <> y.achieved_at`;
  return Number(row!.n);
}

/** Rows in match_results per season. */
export async function storedResults(sql: Sql, seasonId: number): Promise<number> {
  const [row] = await sql<{ n: string }[]>`select count(*) as n from match_results where season_id = ${seasonId}`;
  return Number(row!.n);
}

/** Redis memory of a season: the SEASON board alone (bytes per member) and all its boards. */
export async function boardMemory(redis: Redis, seasonId: number) {
  const key = boardKey(seasonBoard({ id: seasonId }));
  // SAMPLES 0: measure every element rather than extrapolate from 5.
  const bytes = Number((await redis.memory('USAGE', key, 'SAMPLES', 0)) ?? 0);
  const members = await redis.zcard(key);
  let allBytes = 0;
  let allMembers = 0;
  const keys = await boardKeysOf(redis, seasonId);
  for (const k of keys) {
    allBytes += Number((await redis.memory('USAGE', k, 'SAMPLES', 0)) ?? 0);
    allMembers += await redis.zcard(k);
  }
  const encoding = await redis.object('ENCODING', key);
  return { key, bytes, members, encoding, boards: keys.length, allBytes, allMembers };
}
