import type { Sql } from './client.js';

/** A matchId and the SHA-256 of its payload (domain/submission.ts claimText), in hex. */
export interface MatchClaim {
  matchId: string;
  hash: string;
}

/** The authoritative matchId check of submissions: the first payload of a matchId wins. */
export function createMatchClaims(sql: Sql) {
  return {
    /**
     * Claims every matchId not claimed yet, in one statement, and returns the payload hash each
     * matchId holds now (the first claim of a matchId within `claims` wins). Rows are inserted in
     * key order, so concurrent batches cannot deadlock.
     */
    async claim(claims: readonly MatchClaim[]): Promise<Map<string, string>> {
      const first = new Map<string, string>();
      for (const c of claims) if (!first.has(c.matchId)) first.set(c.matchId, c.hash);
      const ids = [...first.keys()].sort();
      type Row = { match_id: string; hash: string };
      // The statement's snapshot cannot see its own inserts, hence the union; it also misses a
      // claim committed by another process while the insert waited on it: read again below.
      const rows = await sql<Row[]>`
        with mine as (
          insert into match_claims (match_id, payload_hash)
          select m, decode(h, 'hex') from unnest(${sql.array(ids)}::uuid[], ${sql.array(ids.map((id) => first.get(id)!))}::text[]) as u(m, h)
          on conflict do nothing
          returning match_id, payload_hash
        )
        select match_id, encode(payload_hash, 'hex') as hash from mine
        union all
        select match_id, encode(payload_hash, 'hex') from match_claims where match_id = any(${sql.array(ids)}::uuid[])`;
      const held = new Map(rows.map((r) => [r.match_id, r.hash]));
      const missing = ids.filter((id) => !held.has(id));
      if (missing.length > 0) {
        const late = await sql<Row[]>`
          select match_id, encode(payload_hash, 'hex') as hash from match_claims where match_id = any(${sql.array(missing)}::uuid[])`;
        for (const r of late) held.set(r.match_id, r.hash);
      }
      return held;
    },
  };
}

export type MatchClaims = ReturnType<typeof createMatchClaims>;
