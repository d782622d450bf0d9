// Migration 0005 (partitioned history) on a database holding data written before it: every row
// carried over, each old match still recognised by the claims and by ingest's dedup. Runs in a
// scratch database of its own, made anew by the global setup and migrated to 0004 first.
import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateSeasonDefinition, type Season } from '../../src/domain/season.js';
import type { MatchResultMessage } from '../../src/domain/result-message.js';
import { createPostgres } from '../../src/postgres/client.js';
import { createMatchClaims } from '../../src/postgres/match-claims.js';
import { createResultsStore } from '../../src/postgres/results-store.js';
import { payloadHash } from '../../src/service/submission-batcher.js';
import { TEST_MIGRATION_DATABASE_URL } from '../support/env.js';

const DAY = 86_400_000;
const migrations = new URL('../../drizzle', import.meta.url).pathname;

/** The migrations folder as it stood before `tag`: the journal cut just before it. */
function migrationsBefore(tag: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'ladder-migrations-'));
  cpSync(migrations, dir, { recursive: true });
  const journalPath = join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: Array<{ tag: string }> };
  journal.entries = journal.entries.slice(
    0,
    journal.entries.findIndex((e) => e.tag === tag),
  );
  writeFileSync(journalPath, JSON.stringify(journal));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

let pg: ReturnType<typeof createPostgres>;
let season: Season;
// Matches written before the migration: 3 players each, endedAt spread over 30 days of history.
const matches = Array.from({ length: 60 }, (_, i) => {
  const matchId = randomUUID();
  const endedAt = new Date(Date.UTC(2026, 9, 1) + (i % 30) * DAY + i * 60_000).toISOString();
  return [1, 2, 3].map((p) => ({
    v: 1 as const,
    matchId,
    seasonId: 0,
    endedAt,
    playerId: String(p + (i % 7)),
    points: (i * p) % 50,
  }));
});

beforeAll(async () => {
  pg = createPostgres(TEST_MIGRATION_DATABASE_URL, 2);
  const before = migrationsBefore('0005_partitioned_history');
  try {
    await migrate(drizzle(pg.sql), { migrationsFolder: before.dir });
  } finally {
    before.remove();
  }
  const def = {
    name: 'before partitions',
    startsAt: new Date(Date.UTC(2026, 8, 1)),
    endsAt: new Date(Date.UTC(2027, 0, 1)),
    scoring: 'BEST' as const,
    order: 'DESC' as const,
    rankStyle: 'ORDINAL' as const,
    maxPointsPerMatch: 100,
  };
  // The seasons row as 0004 had it (the repository writes columns added later); read back as today's.
  const split = validateSeasonDefinition(def);
  const [{ id }] = await pg.sql<[{ id: number }]>`
    insert into seasons (name, starts_at, ends_at, status, scoring, sort_order, rank_style, max_points_per_match,
                         points_bits, time_bits, time_unit_seconds)
    values (${def.name}, ${def.startsAt.toISOString()}::timestamptz, ${def.endsAt.toISOString()}::timestamptz, 'ACTIVE', ${def.scoring}, ${def.order}, ${def.rankStyle},
            ${def.maxPointsPerMatch}, ${split.pointsBits}, ${split.timeBits}, ${split.timeUnitSeconds})
    returning id`;
  season = { ...def, id, status: 'ACTIVE', split };
  for (const m of matches) for (const r of m) r.seasonId = season.id;
  const rows = matches.flat();
  // What ingest and the API wrote before 0005: results keyed (match_id, player_id), one claim per match.
  await pg.sql`insert into match_results (match_id, player_id, season_id, points, ended_at, kafka_partition, kafka_offset)
    select * from unnest(${pg.sql.array(rows.map((r) => r.matchId))}::uuid[], ${pg.sql.array(rows.map((r) => r.playerId))}::int8[],
      ${pg.sql.array(rows.map((r) => r.seasonId))}::int4[], ${pg.sql.array(rows.map((r) => r.points))}::int4[],
      ${pg.sql.array(rows.map((r) => r.endedAt))}::timestamptz[], ${pg.sql.array(rows.map(() => 0))}::int4[],
      ${pg.sql.array(rows.map((_, i) => i))}::int8[])`;
  for (const m of matches)
    await pg.sql`insert into match_claims (match_id, payload_hash) values (${m[0]!.matchId}, decode(${payloadHash(m)}, 'hex'))`;
  await migrate(drizzle(pg.sql), { migrationsFolder: migrations });
});

afterAll(async () => {
  await pg?.close();
});

describe('migration 0005: partitioned history', () => {
  it('carries every result over into the season’s day partitions', async () => {
    const rows = await pg.sql<{ match_id: string; player_id: string; points: number; ended_ms: string }[]>`
      select match_id, player_id, points, floor(extract(epoch from ended_at) * 1000)::int8 as ended_ms
      from match_results where season_id = ${season.id} order by match_id, player_id`;
    const expected = matches
      .flat()
      .map((r) => ({
        match_id: r.matchId,
        player_id: r.playerId,
        points: r.points,
        ended_ms: String(Date.parse(r.endedAt)),
      }))
      .sort((a, b) =>
        a.match_id < b.match_id ? -1 : a.match_id > b.match_id ? 1 : Number(a.player_id) - Number(b.player_id),
      );
    expect(rows.map((r) => ({ ...r }))).toEqual(expected);
    const [parts] = await pg.sql<[{ n: number }]>`
      select count(*)::int as n from pg_inherits where inhparent = to_regclass(${`match_results_s${season.id}`})`;
    expect(parts.n).toBe(30);
  });

  it('claims every old match on its endedAt day and the next, so a retry is accepted and another payload refused', async () => {
    const [claims] = await pg.sql<[{ n: number }]>`select count(*)::int as n from match_claims`;
    expect(claims.n).toBe(2 * matches.length);
    const store = createMatchClaims(pg.sql);
    const old = matches[17]!;
    const held = await store.claim([
      { matchId: old[0]!.matchId, hash: payloadHash(old), endedAt: new Date(old[0]!.endedAt) },
    ]);
    expect(held.get(old[0]!.matchId)).toBe(payloadHash(old));
    const changed: MatchResultMessage[] = old.map((r) => ({ ...r, points: r.points + 1 }));
    const conflicting = await store.claim([
      { matchId: old[0]!.matchId, hash: payloadHash(changed), endedAt: new Date(old[0]!.endedAt) },
    ]);
    expect(conflicting.get(old[0]!.matchId)).toBe(payloadHash(old));
  });

  it('stores nothing twice when an old match is replayed through ingest', async () => {
    const replay = [...matches[3]!, ...matches[29]!].map((r, i) => ({
      ...r,
      endedAt: new Date(r.endedAt),
      partition: 0,
      offset: String(i),
    }));
    const { inserted } = await createResultsStore(pg.sql).applyBatch(replay, () => season);
    expect(inserted).toBe(0);
    const [n] = await pg.sql<
      [{ n: number }]
    >`select count(*)::int as n from match_results where season_id = ${season.id}`;
    expect(n.n).toBe(matches.length * 3);
  });
});
