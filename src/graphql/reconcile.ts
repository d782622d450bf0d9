import type { DriftTally } from '../domain/drift.js';
import type { BoardReconcile, ReconcileReport } from '../service/reconcile-season.js';
import { requireScope } from './auth.js';
import { builder } from './builder.js';
import { ScopeRef } from './scopes.js';
import { WindowEnum } from './scalars.js';

const DriftCountsRef = builder.interfaceRef<DriftTally>('DriftCounts').implement({
  description: 'How a board (or a whole season) in Redis differs from PostgreSQL, the source of truth.',
  fields: (t) => ({
    pgCount: t.exposeInt('pgCount', { description: 'standings in PostgreSQL' }),
    redisCount: t.exposeInt('redisCount', { description: 'members in Redis when the comparison began' }),
    missing: t.exposeInt('missing', { description: 'in PostgreSQL, not in Redis' }),
    extra: t.exposeInt('extra', { description: 'in Redis, not in PostgreSQL' }),
    different: t.exposeInt('different', { description: 'in both, with another score' }),
    repaired: t.exposeInt('repaired', { description: 'entries written or removed by the repair (0 without repair)' }),
    unencodable: t.exposeInt('unencodable', {
      description: 'standings no composite score can hold (never on a board)',
    }),
    missingSample: t.field({ type: ['ID'], resolve: (d) => d.samples.missing, description: 'some missing player ids' }),
    extraSample: t.field({ type: ['ID'], resolve: (d) => d.samples.extra, description: 'some extra player ids' }),
    differentSample: t.field({
      type: ['ID'],
      resolve: (d) => d.samples.different,
      description: 'some player ids with another score',
    }),
  }),
});

const BoardReconcileRef = builder.objectRef<BoardReconcile>('BoardReconcileReport').implement({
  interfaces: [DriftCountsRef],
  fields: (t) => ({
    window: t.expose('window', { type: WindowEnum }),
    period: t.exposeString('period', { description: "'' for SEASON, 'yyyy-mm-dd' for DAY, 'YYYY-Www' for WEEK" }),
    scope: t.field({
      type: ScopeRef,
      nullable: true,
      description: 'a scope board (listed when it drifted); null: the whole board',
      resolve: (b) => b.scope ?? null,
    }),
    scopeBoards: t.int({
      nullable: true,
      description: 'on a whole board: how many of its scope boards were compared',
      resolve: (b) => b.scopeBoards ?? null,
    }),
    redisScanned: t.exposeBoolean('redisScanned', {
      description: 'false when the counts proved Redis holds no extra member',
    }),
  }),
});

const ReconcileTotalRef = builder.objectRef<DriftTally>('ReconcileTotal').implement({
  interfaces: [DriftCountsRef],
});

const ReconcileReportRef = builder.objectRef<ReconcileReport>('ReconcileReport').implement({
  fields: (t) => ({
    seasonId: t.exposeInt('seasonId'),
    repair: t.exposeBoolean('repair', { description: 'whether drift was repaired or only reported' }),
    boards: t.field({
      type: [BoardReconcileRef],
      resolve: (r) => r.boards,
      description: 'SEASON, then live DAY and WEEK boards',
    }),
    total: t.field({ type: ReconcileTotalRef, resolve: (r) => r.total }),
    durationMs: t.exposeInt('durationMs'),
  }),
});

builder.mutationFields((t) => ({
  reconcileLeaderboard: t.field({
    type: ReconcileReportRef,
    description:
      "Scope: admin. Compares the season's live Redis boards with PostgreSQL; with repair, writes PostgreSQL's values over what differs.",
    args: {
      seasonId: t.arg.int({ required: true }),
      repair: t.arg.boolean({ required: false, defaultValue: false }),
    },
    resolve: async (_root, { seasonId, repair }, ctx) => {
      const principal = await requireScope(ctx, 'admin');
      const details = { repair: repair ?? false };
      return ctx.services.audited(principal, { action: 'reconcile', seasonId, details }, () =>
        ctx.services.reconcile(seasonId, repair ?? false),
      );
    },
  }),
}));
