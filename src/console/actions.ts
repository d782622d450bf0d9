// What the console does, on behalf of a signed-in session: the same service functions the GraphQL
// admin mutations (seasons) and the CLI's `keys` commands call, each recorded in the audit trail
// with the session's API key as actor (service/audit-trail.ts).
import { coerceInputValue, GraphQLError, type GraphQLInputType } from 'graphql';
import { badInput } from '../domain/errors.js';
import { boardsOf, seasonsWithBoards, windowsOf, type Season } from '../domain/season.js';
import type { Services } from '../graphql/context.js';
import { schema } from '../graphql/schema.js';
import type { ApiKeyInfo } from '../postgres/api-keys-repo.js';
import { createApiKey, rotateApiKey, type ApiKeyStore } from '../service/api-keys.js';
import { audited, type AuditLog } from '../service/audit-trail.js';
import { newSeasonOf, type NewSeasonInput } from '../service/seasons.js';
import type { ConsoleSession } from './sessions.js';

/** API keys as the console manages them (postgres/api-keys-repo.ts). */
type ConsoleKeyStore = ApiKeyStore & Parameters<typeof rotateApiKey>[0] & { list(): Promise<ApiKeyInfo[]> };

export interface ConsoleActionDeps {
  services: Pick<Services, 'seasons' | 'createSeason' | 'closeSeason'>;
  keys: ConsoleKeyStore;
  audit: Pick<AuditLog, 'record'>;
  onRecordFailed(err: unknown, action: string): void;
}

/** "kills (SUM, DESC, max 50 a match; SEASON DAY WEEK)", or with keys "wins DESC > time ASC (...)". */
function boardDefinition(b: Season): string {
  const ranks = b.keys
    ? b.keys.map((k) => `${k.stat}${k.aggregate === 'SUM' ? ' SUM' : ''} ${k.order}`).join(' > ') +
      (b.scoring === 'LAST' ? ' (LAST)' : '')
    : `${b.stat ?? 'points'} (${b.scoring}, ${b.order}, max ${b.maxPointsPerMatch} a match)`;
  return `${b.board ?? 'points'}: ${ranks}; ${windowsOf(b).join(' ')}`;
}

/** A season as the console lists it. */
function seasonView(s: Season) {
  return {
    id: s.id,
    name: s.name,
    status: s.status,
    startsAt: s.startsAt.toISOString(),
    endsAt: s.endsAt.toISOString(),
    scoring: s.scoring,
    maxPointsPerMatch: s.maxPointsPerMatch,
    boards: boardsOf(s).map((b) => b.board ?? 'points'),
    /** Each board's definition as one line: what it ranks, how, which windows. */
    boardDefinitions: boardsOf(s).map(boardDefinition),
    league: s.league?.name ?? null,
    repeats: s.repeats === true,
  };
}

/** The body's `input` checked and coerced as GraphQL checks createSeason's (types, enums, DateTime). */
function seasonInput(input: unknown): NewSeasonInput {
  const type = schema.getType('CreateSeasonInput') as GraphQLInputType;
  try {
    return coerceInputValue(input, type, (path, _value, error) => {
      throw badInput(path.join('.') || 'input', error.message);
    }) as NewSeasonInput;
  } catch (err) {
    if (err instanceof GraphQLError) throw badInput('input', err.message);
    throw err;
  }
}

export const positiveId = (v: unknown, field: string): number => {
  const n = typeof v === 'string' && /^[1-9]\d{0,9}$/.test(v) ? Number(v) : NaN;
  if (!(n <= 2 ** 31 - 1)) throw badInput(field, `${field} must be a positive integer`);
  return n;
};

/** Runs a console action and records it in the audit trail, actor = the session's key name. */
export const auditedFor = <T>(
  deps: Pick<ConsoleActionDeps, 'audit' | 'onRecordFailed'>,
  session: ConsoleSession,
  entry: { action: string; seasonId?: number; details?: Record<string, unknown> },
  action: () => Promise<T>,
) =>
  audited(deps.audit, { ...entry, actor: session.name, reason: `console (API key ${session.keyId})` }, action, (err) =>
    deps.onRecordFailed(err, entry.action),
  );

export function createConsoleActions(deps: ConsoleActionDeps) {
  const run = <T>(session: ConsoleSession, entry: Parameters<typeof auditedFor>[2], action: () => Promise<T>) =>
    auditedFor(deps, session, entry, action);

  return {
    async seasons() {
      return seasonsWithBoards(await deps.services.seasons()).map(seasonView);
    },
    async createSeason(session: ConsoleSession, body: { input?: unknown }) {
      const input = seasonInput(body.input);
      return seasonView(
        await run(session, { action: 'create_season', details: { input: body.input as object } }, () =>
          deps.services.createSeason(newSeasonOf(input)),
        ),
      );
    },
    /** The close is audited by the close itself (the actor and reason given), as closeSeason's is. */
    async closeSeason(session: ConsoleSession, idText: string) {
      const id = positiveId(idText, 'id');
      const season = await deps.services.closeSeason(id, {
        actor: session.name,
        reason: `console (API key ${session.keyId})`,
      });
      return seasonView(season);
    },
    async keys() {
      return (await deps.keys.list()).map((k) => ({
        id: k.id,
        name: k.name,
        scopes: k.scopes,
        createdAt: k.createdAt.toISOString(),
        revokedAt: k.revokedAt?.toISOString() ?? null,
        lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
      }));
    },
    async createKey(session: ConsoleSession, body: { name?: unknown; scopes?: unknown }) {
      const name = typeof body.name === 'string' ? body.name : '';
      const scopes = Array.isArray(body.scopes) ? body.scopes.filter((s): s is string => typeof s === 'string') : [];
      return run(session, { action: 'keys_create', details: { name, scopes } }, () =>
        createApiKey(deps.keys, { name, scopes }),
      );
    },
    async revokeKey(session: ConsoleSession, idText: string) {
      const id = positiveId(idText, 'id');
      await run(session, { action: 'keys_revoke', details: { id } }, async () => {
        if (!(await deps.keys.revoke(id, 0))) throw badInput('id', `no working API key with id ${id}`);
      });
      return { id, revoked: true };
    },
    async rotateKey(session: ConsoleSession, idText: string, body: { graceSeconds?: unknown }) {
      const id = positiveId(idText, 'id');
      const grace = body.graceSeconds === undefined ? 0 : Number(body.graceSeconds);
      const rotated = await run(session, { action: 'keys_rotate', details: { id, graceSeconds: grace } }, () =>
        rotateApiKey(deps.keys, id, grace),
      );
      return { ...rotated, oldStopsAt: rotated.oldStopsAt.toISOString() };
    },
  };
}

export type ConsoleActions = ReturnType<typeof createConsoleActions>;
