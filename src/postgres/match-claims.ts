import type { Sql } from './client.js';

/** A matchId, the SHA-256 of its payload (domain/submission.ts claimText) in hex, and its endedAt. */
export interface MatchClaim {
  matchId: string;
  hash: string;
  endedAt: Date;
}

const DAY_MS = 86_400_000;
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The authoritative matchId check of submissions: the first payload of a matchId wins.
 *
 * match_claims is partitioned by day, keyed (day, match_id), so a claim only ever touches the
 * indexes of the days around its endedAt, however long the history. A claim is two rows, on the
 * UTC day of its endedAt and on the day after: two payloads of one matchId whose days are at
 * most one apart share a key, so the second meets the first in the primary key (the same
 * race-free check as a one-row claim). That covers every pair of endedAt less than 24 h apart; a
 * retry (the same payload, so the same endedAt) is recognised at any age.
 */
export function createMatchClaims(sql: Sql) {
  // Each day's partition creation, once per process (the scheduler creates them ahead of time);
  // batches in flight together wait for the same one, so they reach the insert in order.
  const partitions = new Map<string, Promise<unknown>>();
  async function ensurePartitions(days: readonly string[]): Promise<void> {
    for (const day of days) {
      let created = partitions.get(day);
      if (!created) {
        created = sql`select ladder_claims_partition(${day}::date)`.execute();
        partitions.set(day, created);
        created.catch(() => partitions.delete(day));
      }
      await created;
    }
  }

  return {
    /**
     * Claims every matchId not claimed yet, in one statement, and returns the payload hash each
     * matchId holds now: another payload's where one of its keys holds one, else its own (the
     * first claim of a matchId within `claims` wins). Rows are inserted in key order, so
     * concurrent batches cannot deadlock.
     */
    async claim(claims: readonly MatchClaim[]): Promise<Map<string, string>> {
      const first = new Map<string, MatchClaim>();
      for (const c of claims) if (!first.has(c.matchId)) first.set(c.matchId, c);
      const keys: Array<{ day: string; matchId: string; hash: string }> = [];
      for (const c of first.values()) {
        const day = Math.floor(c.endedAt.getTime() / DAY_MS) * DAY_MS;
        keys.push({ day: utcDay(day), matchId: c.matchId, hash: c.hash });
        keys.push({ day: utcDay(day + DAY_MS), matchId: c.matchId, hash: c.hash });
      }
      keys.sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : a.matchId < b.matchId ? -1 : 1));
      await ensurePartitions([...new Set(keys.map((k) => k.day))]);
      const days = sql.array(keys.map((k) => k.day));
      const ids = sql.array(keys.map((k) => k.matchId));
      type Row = { day: string; match_id: string; hash: string };
      // The statement's snapshot cannot see its own inserts, hence the union; it also misses a
      // claim committed by another process while the insert waited on it: read again below.
      const rows = await sql<Row[]>`
        with k as (select * from unnest(${days}::date[], ${ids}::uuid[]) as k(day, match_id)),
        mine as (
          insert into match_claims (day, match_id, payload_hash)
          select d, m, decode(h, 'hex')
          from unnest(${days}::date[], ${ids}::uuid[], ${sql.array(keys.map((k) => k.hash))}::text[]) as u(d, m, h)
          on conflict do nothing
          returning day::text, match_id, payload_hash
        )
        select day, match_id, encode(payload_hash, 'hex') as hash from mine
        union all
        select c.day::text, c.match_id, encode(c.payload_hash, 'hex') from match_claims c join k using (day, match_id)`;
      const held = new Map(rows.map((r) => [`${r.day}|${r.match_id}`, r.hash]));
      const missing = keys.filter((k) => !held.has(`${k.day}|${k.matchId}`));
      if (missing.length > 0) {
        const late = await sql<Row[]>`
          select c.day::text, c.match_id, encode(c.payload_hash, 'hex') as hash
          from match_claims c
          join unnest(${sql.array(missing.map((k) => k.day))}::date[], ${sql.array(missing.map((k) => k.matchId))}::uuid[]) as k(day, match_id)
            using (day, match_id)`;
        for (const r of late) held.set(`${r.day}|${r.match_id}`, r.hash);
      }
      const answer = new Map<string, string>();
      for (const k of keys) {
        const hash = held.get(`${k.day}|${k.matchId}`);
        if (hash !== undefined && (hash !== k.hash || !answer.has(k.matchId))) answer.set(k.matchId, hash);
      }
      return answer;
    },
  };
}
