// Scopes (docs/design.md#scopes): a player's region and groups, and the reads within one of them.
import { parsePlayerId } from '../domain/result-message.js';
import { MAX_GROUPS, parsePlayerScopes, requestedScope, scopeView, type PlayerScopes } from '../domain/scopes.js';
import { badInput } from '../domain/errors.js';
import { cohortScope } from '../domain/leagues.js';
import { seasonIdOf, type Season } from '../domain/season.js';
import type { Context } from './context.js';
import { requireScope } from './auth.js';
import { builder } from './builder.js';

export const ScopeInput = builder.inputType('ScopeInput', {
  description: 'Where to rank: exactly one of a region and a group.',
  fields: (t) => ({
    region: t.string({
      required: false,
      description: 'an ISO 3166-1 alpha-2 country ("BR": its subdivisions too) or a 3166-2 subdivision ("BR-SP")',
    }),
    group: t.string({ required: false, description: 'a group (clan, guild) id' }),
    cohortOf: t.id({
      required: false,
      description: "a league season's cohort: the one this player is in (docs/design.md#leagues)",
    }),
  }),
});

export const ScopeRef = builder.objectRef<string>('Scope').implement({
  description: 'The region, group or league cohort a board ranks within.',
  fields: (t) => ({
    region: t.string({ nullable: true, resolve: (s) => scopeView(s).region }),
    group: t.string({ nullable: true, resolve: (s) => scopeView(s).group }),
    cohort: t.string({
      nullable: true,
      description: 'a league cohort: <tier index>.<cohort number>',
      resolve: (s) => (s.startsWith('c:') ? s.slice(2) : null),
    }),
  }),
});

export const PlacementEnum = builder.enumType('LeaguePlacement', {
  description:
    "ARRIVAL: first come first served within a tier. RANK: players of last season's close fill their tier's cohorts in its final order (the best together); the others first come first served after them.",
  values: ['ARRIVAL', 'RANK'] as const,
});

export const LeagueInput = builder.inputType('LeagueInput', {
  description:
    'League mode (docs/design.md#leagues): cohorts of cohortSize per tier, promotion and relegation at the close.',
  fields: (t) => ({
    name: t.string({ required: true, description: "the league's id, shared by its seasons: tiers carry over" }),
    tiers: t.stringList({ required: true, description: '1..20 tier names, lowest first (Bronze, Silver, Gold)' }),
    cohortSize: t.int({ required: true, description: 'players per cohort, 2..1000' }),
    promote: t.int({ required: true, description: 'the best of each cohort who move up a tier at the close' }),
    relegate: t.int({ required: true, description: 'the worst of each cohort who move down' }),
    placement: t.field({
      type: PlacementEnum,
      required: false,
      description: 'how players are put in cohorts at their first result; default ARRIVAL',
    }),
  }),
});

export const PlayerScopesInput = builder.inputType('PlayerScopesInput', {
  description: "A player's scopes, replacing the ones they had: every board also ranks them within each.",
  fields: (t) => ({
    region: t.string({
      required: false,
      description: 'ISO 3166-1 alpha-2, optionally a 3166-2 subdivision ("BR-SP"); absent or null: none',
    }),
    groups: t.stringList({
      required: false,
      description: `at most ${MAX_GROUPS} group ids of 1..64 of A-Z a-z 0-9 _ . -; absent: none`,
    }),
  }),
});

const PlayerScopesRef = builder.objectRef<PlayerScopes & { playerId: string }>('PlayerScopes').implement({
  description: 'Where a player ranks besides each whole board.',
  fields: (t) => ({
    playerId: t.exposeID('playerId'),
    region: t.exposeString('region', { nullable: true }),
    groups: t.stringList({ resolve: (s) => [...s.groups] }),
  }),
});

const SetPlayerScopesInput = builder.inputType('SetPlayerScopesInput', {
  fields: (t) => ({
    playerId: t.id({ required: true }),
    region: t.string({ required: false, description: 'as in PlayerScopesInput' }),
    groups: t.stringList({ required: false, description: 'as in PlayerScopesInput' }),
  }),
});

builder.queryField('playerScopes', (t) =>
  t.field({
    type: PlayerScopesRef,
    nullable: true,
    description: "A player's region and groups as ingest last applied them; null: none set.",
    args: { playerId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const playerId = parsePlayerId(args.playerId);
      const scopes = await ctx.services.playerScopes(playerId);
      return scopes && { playerId, ...scopes };
    },
  }),
);

builder.mutationField('setPlayerScopes', (t) =>
  t.field({
    type: PlayerScopesRef,
    description:
      "Scope: admin. Replaces a player's region and groups; answers once Kafka has the change. Ingest applies it in order with the player's results: their standings leave the scope boards they left and join the new ones, on every live board. Audited.",
    args: { input: t.arg({ type: SetPlayerScopesInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const principal = await requireScope(ctx, 'admin');
      const playerId = parsePlayerId(input.playerId);
      const scopes = parsePlayerScopes(input);
      const details = { playerId, region: scopes.region, groups: scopes.groups };
      await ctx.services.audited(principal, { action: 'setPlayerScopes', details }, () =>
        ctx.services.setPlayerScopes(playerId, scopes),
      );
      return { playerId, ...scopes };
    },
  }),
);

/**
 * The scope a read or subscription of `season` asks for (null: every player): a region or group,
 * or a league cohort, the one `cohortOf` is in (BAD_USER_INPUT 'cohortOf' before their first result).
 */
export async function scopeAsked(
  season: Season,
  input: { region?: string | null; group?: string | null; cohortOf?: string | null } | null | undefined,
  ctx: Context,
): Promise<string | null> {
  if (input?.cohortOf == null) return requestedScope(input);
  if (input.region != null || input.group != null)
    throw badInput('scope', 'scope takes exactly one of region, group and cohortOf');
  if (!season.league) throw badInput('cohortOf', `season ${seasonIdOf(season)} is not a league season`);
  const playerId = parsePlayerId(input.cohortOf);
  const member = await ctx.services.leagues.memberOf(seasonIdOf(season), playerId);
  if (!member)
    throw badInput(
      'cohortOf',
      `player ${playerId} has no cohort in season ${seasonIdOf(season)} yet (placed at their first result)`,
    );
  return cohortScope(member.tier, member.cohort);
}
