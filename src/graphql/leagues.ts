// Leagues (docs/design.md#leagues): a season's league, a player's tier and cohort, the close's moves.
import { requestedBoard, scopedBoard } from '../domain/board.js';
import { badInput } from '../domain/errors.js';
import { cohortScope, zoneOf, type League } from '../domain/leagues.js';
import { parsePlayerId } from '../domain/result-message.js';
import type { Season } from '../domain/season.js';
import { builder } from './builder.js';
import type { LeaderboardValue } from './context.js';
import { LeaderboardRef } from './leaderboard.js';
import { PlacementEnum } from './scopes.js';
import { publicSeason, SeasonRef } from './season.js';

const LeagueRef = builder.objectRef<League>('League').implement({
  fields: (t) => ({
    name: t.exposeString('name'),
    tiers: t.exposeStringList('tiers', { description: 'lowest first' }),
    cohortSize: t.exposeInt('cohortSize'),
    promote: t.exposeInt('promote'),
    relegate: t.exposeInt('relegate'),
    placement: t.field({ type: PlacementEnum, resolve: (l) => l.placement ?? 'ARRIVAL' }),
  }),
});

builder.objectField(SeasonRef, 'league', (t) =>
  t.field({
    type: LeagueRef,
    nullable: true,
    description: 'null: not a league season',
    resolve: (s) => s.league ?? null,
  }),
);

const ZoneEnum = builder.enumType('LeagueZone', { values: ['PROMOTION', 'STAY', 'RELEGATION'] as const });

interface Standing {
  season: Season;
  tier: number;
  cohort: number;
  board: LeaderboardValue;
  playerId: string;
}

const LeagueStandingRef = builder.objectRef<Standing>('LeagueStanding').implement({
  description: "A player's place in a league season: their tier, their cohort's board, their zone now.",
  fields: (t) => ({
    tier: t.string({ resolve: (s) => s.season.league!.tiers[s.tier]! }),
    tierIndex: t.int({ description: '0: the lowest tier', resolve: (s) => s.tier }),
    cohort: t.int({ description: 'the cohort number within the tier', resolve: (s) => s.cohort }),
    leaderboard: t.field({ type: LeaderboardRef, description: 'the cohort’s board', resolve: (s) => s.board }),
    zone: t.field({
      type: ZoneEnum,
      nullable: true,
      description: 'what the close would do with the player now; null: not ranked',
      resolve: async (s, _args, ctx) => {
        const [entry, size] = await Promise.all([
          ctx.services.boards.entry(s.board, s.playerId, ctx.reads),
          ctx.services.boards.size(s.board, ctx.reads),
        ]);
        return entry && zoneOf(s.season.league!, s.tier, entry.rank, size);
      },
    }),
  }),
});

const LeagueMoveRef = builder
  .objectRef<{ playerId: string; cohort: number; rank: number; fromTier: string; toTier: string; promoted: boolean }>(
    'LeagueMove',
  )
  .implement({
    fields: (t) => ({
      playerId: t.exposeID('playerId'),
      cohort: t.exposeInt('cohort'),
      rank: t.exposeInt('rank', { description: 'final rank in the cohort' }),
      fromTier: t.exposeString('fromTier'),
      toTier: t.exposeString('toTier'),
      promoted: t.exposeBoolean('promoted'),
    }),
  });

builder.queryFields((t) => ({
  leagueStanding: t.field({
    type: LeagueStandingRef,
    nullable: true,
    description: "A player's tier and cohort in a league season, without knowing ids; null before their first result.",
    args: { seasonId: t.arg.int({ required: true }), playerId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const season = await publicSeason(ctx, args.seasonId);
      if (!season?.league) throw badInput('seasonId', `season ${args.seasonId} is not a league season`);
      const playerId = parsePlayerId(args.playerId);
      const member = await ctx.services.leagues.memberOf(season.id, playerId);
      if (!member) return null;
      const board = scopedBoard(
        requestedBoard(season, 'SEASON', null, ctx.services.now()),
        cohortScope(member.tier, member.cohort),
      );
      return { season, ...member, board, playerId };
    },
  }),
  leagueMoves: t.field({
    type: [LeagueMoveRef],
    description: "Who a league season's close promoted and relegated, by tier and cohort ([] before its close).",
    args: { seasonId: t.arg.int({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const season = await publicSeason(ctx, args.seasonId);
      if (!season?.league) throw badInput('seasonId', `season ${args.seasonId} is not a league season`);
      const tiers = season.league.tiers;
      return (await ctx.services.leagues.moves(season.id)).map((m) => ({
        ...m,
        fromTier: tiers[m.fromTier]!,
        toTier: tiers[m.toTier]!,
        promoted: m.toTier > m.fromTier,
      }));
    },
  }),
}));
