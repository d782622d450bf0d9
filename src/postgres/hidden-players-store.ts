// The PostgreSQL side of hiding players from public boards pending review (docs/design.md#moderation):
// the hidden_players rows, each change audited in its transaction, and `notHidden`, the condition
// every reader of standings for a board (rebuild, reconcile, snapshots, final standings) adds, so
// a hidden player is left out of everything a board shows while their standings stay exact.
import type { BoardRef } from '../domain/board-deltas.js';
import type { AuditEntry } from '../domain/player-removal.js';
import type { Sql, Tx } from './client.js';
import { insertAudit, lockOpenSeason } from './player-results-store.js';

type Fragment = ReturnType<Sql>;

/** The season (own row) of a board row, as SQL text. */
const seasonOfBoard = (boardId: string) =>
  `(select coalesce(b.parent_id, b.id) from seasons b where b.id = ${boardId})`;

/**
 * `and <player> is not hidden in the season of board row <boardId>`: a hashed subplan over a short
 * list, evaluated once per statement (nothing measurable on a board of millions).
 */
export function notHidden(sql: Sql | Tx, player: Fragment, boardId: number): Fragment {
  return sql`and ${player} not in (select h.player_id from hidden_players h
    where h.season_id = ${sql.unsafe(seasonOfBoard(integerText(boardId)))})`;
}

/** The same condition as literal text, for a COPY statement (which takes no parameters). */
export function notHiddenLiteral(player: string, boardId: number): string {
  return `and ${player} not in (select h.player_id from hidden_players h where h.season_id = ${seasonOfBoard(integerText(boardId))})`;
}

function integerText(n: number): string {
  if (!Number.isSafeInteger(n)) throw new Error(`not an integer: ${n}`);
  return String(n);
}

export function createHiddenPlayersStore(sql: Sql) {
  /** One change of state with its audit row; `changed` is false when the player already was in it. */
  const change = (seasonId: number, playerId: string, audit: AuditEntry, write: (tx: Tx) => Promise<boolean>) =>
    sql.begin(async (tx) => {
      // An open season only: a closed one's final boards are written and not changed.
      await lockOpenSeason(tx, seasonId);
      const changed = await write(tx);
      const auditId = await insertAudit(tx, seasonId, playerId, { ...audit, details: { ...audit.details, changed } });
      return { changed, auditId };
    }) as Promise<{ changed: boolean; auditId: number }>;

  return {
    hide: (seasonId: number, playerId: string, audit: AuditEntry) =>
      change(seasonId, playerId, audit, async (tx) => {
        const rows = await tx`
          insert into hidden_players (season_id, player_id, reason) values (${seasonId}, ${playerId}, ${audit.reason})
          on conflict do nothing returning 1`;
        return rows.length > 0;
      }),

    unhide: (seasonId: number, playerId: string, audit: AuditEntry) =>
      change(seasonId, playerId, audit, async (tx) => {
        const rows = await tx`
          delete from hidden_players where season_id = ${seasonId} and player_id = ${playerId} returning 1`;
        return rows.length > 0;
      }),

    /** Every player hidden in a season (a short list: the caches load it whole). */
    async hiddenIn(seasonId: number): Promise<Set<string>> {
      const rows = await sql<{ player_id: string }[]>`
        select player_id::text from hidden_players where season_id = ${seasonId}`;
      return new Set(rows.map((r) => r.player_id));
    },

    /** Every board (window, period) of a board row on which the player has a standing. */
    async boardsOf(boardId: number, playerId: string): Promise<BoardRef[]> {
      const rows = await sql<{ window: BoardRef['window']; period: string }[]>`
        select "window", period from standings where season_id = ${boardId} and player_id = ${playerId}
        order by "window", period`;
      return rows.map((r) => ({ seasonId: boardId, window: r.window, period: r.period, playerId }));
    },
  };
}
