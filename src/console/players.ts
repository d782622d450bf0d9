// The console's players page (docs/operations.md#console): find a player by id or name; see their
// scopes, their blocks and hides, their stored standing and public rank on every current board of
// each open season, and their latest results; then block, unblock, hide pending review, show again,
// remove results, or set their region and groups. Each action is the GraphQL admin mutation's own
// service call, audited under the session's key name (with the reason the operator typed).
import { badInput } from '../domain/errors.js';
import { boardAt } from '../domain/board.js';
import { boardsOf, windowsOf, type Season } from '../domain/season.js';
import { parsePlayerScopes } from '../domain/scopes.js';
import { parseSeasonId } from '../service/blocked-players.js';
import type { Services } from '../graphql/context.js';
import type { BoardKey, PlayerLookup } from '../postgres/player-lookup.js';
import type { ConsoleRoute } from './routes.js';
import type { ConsoleSession } from './sessions.js';

const RECENT_RESULTS = 20;
const FOUND = 20;

export interface ConsolePlayerDeps {
  services: Pick<Services, 'seasons' | 'boards' | 'playerScopes' | 'playerAdmin' | 'setPlayerScopes' | 'audited'>;
  lookup: PlayerLookup;
  now(): Date;
}

/** A body's season id as the services check it (parseSeasonId): a number, or its decimal text. */
const seasonIdIn = (v: unknown): number =>
  parseSeasonId(typeof v === 'number' || typeof v === 'string' ? Number(v) : NaN);

export function createConsolePlayers(deps: ConsolePlayerDeps) {
  const { services } = deps;
  const by = (session: ConsoleSession) => ({
    actor: session.name,
    details: { keyId: session.keyId, via: 'console' },
  });

  /** Each open season's boards now: every board row, every window it keeps, the current period. */
  function currentBoards(seasons: readonly Season[]) {
    const now = deps.now();
    return seasons.flatMap((season) =>
      boardsOf(season).flatMap((board) =>
        windowsOf(board).map((window) => ({ season, board: boardAt(board, window, now) })),
      ),
    );
  }

  return {
    async find(q: string | null) {
      const query = q?.trim() ?? '';
      if (query === '' || query.length > 100) throw badInput('q', 'q must be 1..100 characters: a player id or a name');
      return deps.lookup.find(query, FOUND);
    },

    async player(idText: string) {
      const playerId = idText; // the route's pattern: a canonical player id
      const [found] = await deps.lookup.find(playerId, 1);
      const open = (await services.seasons()).filter((s) => !s.finalizedAt);
      const boards = currentBoards(open);
      const keys: BoardKey[] = boards.map(({ board }) => ({
        boardId: board.season.id,
        window: board.window,
        period: board.period,
      }));
      const [stored, scopes, moderation, recent] = await Promise.all([
        deps.lookup.standings(playerId, keys),
        services.playerScopes(playerId),
        deps.lookup.moderation(playerId),
        deps.lookup.recentResults(
          playerId,
          open.flatMap((s) => boardsOf(s).map((b) => b.id)),
          RECENT_RESULTS,
        ),
      ]);
      const storedOf = new Map(stored.map((s) => [`${s.boardId}|${s.window}|${s.period}`, s]));
      const shown = boards.flatMap(({ season, board }) => {
        const s = storedOf.get(`${board.season.id}|${board.window}|${board.period}`);
        return s ? [{ season, board, s }] : [];
      });
      // The rank the public sees: none while hidden (the stored standing is still shown here).
      const entries = await Promise.all(shown.map(({ board }) => services.boards.entry(board, playerId)));
      const standings = shown.map(({ season, board, s }, i) => ({
        seasonId: season.id,
        seasonName: season.name,
        board: board.season.board ?? 'points',
        window: board.window,
        period: board.period,
        points: s.points,
        achievedAt: s.achievedAt.toISOString(),
        rank: entries[i]?.rank ?? null,
      }));
      return {
        playerId,
        name: found?.name ?? null,
        scopes,
        moderation: moderation.map((m) => ({ ...m, since: m.since.toISOString() })),
        standings,
        recentResults: recent.map((r) => ({ ...r, endedAt: r.endedAt.toISOString() })),
      };
    },

    /** block, unblock, hide, unhide: { seasonId, reason }. */
    async moderate(
      session: ConsoleSession,
      playerId: string,
      action: 'block' | 'unblock' | 'hide' | 'unhide',
      body: Record<string, unknown>,
    ) {
      // The reason is checked by the service (parseReason), as for the GraphQL mutations.
      const input = {
        seasonId: seasonIdIn(body.seasonId),
        playerId,
        reason: String(body.reason ?? ''),
        ...by(session),
      };
      return services.playerAdmin[action](input);
    },

    /**
     * { region, groups }: replaces the player's scopes, as setPlayerScopes does (queued in Kafka,
     * applied by ingest in order with their results; audited as setPlayerScopes).
     */
    async setScopes(session: ConsoleSession, playerId: string, body: Record<string, unknown>) {
      const region = typeof body.region === 'string' && body.region.trim() !== '' ? body.region.trim() : null;
      const groups = Array.isArray(body.groups) ? body.groups.filter((g): g is string => typeof g === 'string') : [];
      const scopes = parsePlayerScopes({ region, groups });
      const principal = { keyId: session.keyId, name: session.name, scopes: new Set(['admin'] as const) };
      const details = { playerId, region: scopes.region, groups: scopes.groups, via: 'console' };
      await services.audited(principal, { action: 'setPlayerScopes', details }, () =>
        services.setPlayerScopes(playerId, scopes),
      );
      return { playerId, ...scopes };
    },

    /** { seasonId, reason, matchId?, block? }: all the player's results in the season, or one match's. */
    async remove(session: ConsoleSession, playerId: string, body: Record<string, unknown>) {
      const matchId = typeof body.matchId === 'string' && body.matchId !== '' ? body.matchId : null;
      return services.playerAdmin.remove({
        seasonId: seasonIdIn(body.seasonId),
        playerId,
        matchId,
        reason: String(body.reason ?? ''),
        block: body.block === true,
        ...by(session),
      });
    },
  };
}

type ConsolePlayers = ReturnType<typeof createConsolePlayers>;

const PLAYER = String.raw`^\/players\/([1-9]\d{0,18})`;

export const playerRoutes = (p: ConsolePlayers): ConsoleRoute[] => [
  { method: 'GET', path: /^\/players$/, run: (r) => p.find(r.query.get('q')) },
  { method: 'GET', path: new RegExp(`${PLAYER}$`), run: (r) => p.player(r.params[0]!) },
  {
    method: 'POST',
    path: new RegExp(`${PLAYER}\\/(block|unblock|hide|unhide)$`),
    run: (r) => p.moderate(r.session, r.params[0]!, r.params[1] as 'block', r.body),
  },
  { method: 'POST', path: new RegExp(`${PLAYER}\\/remove$`), run: (r) => p.remove(r.session, r.params[0]!, r.body) },
  { method: 'POST', path: new RegExp(`${PLAYER}\\/scopes$`), run: (r) => p.setScopes(r.session, r.params[0]!, r.body) },
];
