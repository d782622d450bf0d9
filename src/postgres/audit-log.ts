// The audit trail's store (service/audit-trail.ts): rows of admin_audit.
import { redactSecrets, type AuditEntry, type AuditFilter, type AuditLog } from '../service/audit-trail.js';
import type { Sql } from './client.js';

type Row = {
  id: number;
  at_ms: string;
  actor: string;
  action: string;
  season_id: number | null;
  player_id: string | null;
  match_id: string | null;
  reason: string;
  details: unknown;
  outcome: string;
};

export function createAuditLog(sql: Sql): AuditLog {
  return {
    async record(r) {
      const details = r.details ? JSON.stringify(redactSecrets(r.details)) : null;
      const [row] = await sql<[{ id: number }]>`
        insert into admin_audit (actor, action, season_id, player_id, reason, details, outcome)
        values (${r.actor}, ${r.action}, ${r.seasonId ?? null}, ${r.playerId ?? null}, ${r.reason},
                ${details}::jsonb, ${r.outcome})
        returning id`;
      return row.id;
    },

    /** Newest first: up to `first` entries with an id below `before`, of one season or action when given. */
    async list(f: AuditFilter) {
      const rows = await sql<Row[]>`
        select id, floor(extract(epoch from at) * 1000)::int8 as at_ms, actor, action, season_id, player_id,
               match_id::text as match_id, reason, details, outcome
        from admin_audit
        where (${f.before ?? null}::int is null or id < ${f.before ?? null}::int)
          and (${f.seasonId ?? null}::int is null or season_id = ${f.seasonId ?? null}::int)
          and (${f.action ?? null}::text is null or action = ${f.action ?? null}::text)
        order by id desc limit ${f.first}`;
      return rows.map((r): AuditEntry => ({
        id: r.id,
        at: new Date(Number(r.at_ms)),
        actor: r.actor,
        action: r.action,
        seasonId: r.season_id,
        playerId: r.player_id,
        matchId: r.match_id,
        reason: r.reason,
        details: r.details,
        outcome: r.outcome,
      }));
    },
  };
}
