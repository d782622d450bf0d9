// Rewards (docs/design.md#rewards): rules a season declares, the rewards its close grants, claims.
import { badInput } from '../domain/errors.js';
import type { Reward, RewardRule } from '../domain/rewards.js';
import { parsePlayerId } from '../domain/result-message.js';
import { requireScope } from './auth.js';
import { builder } from './builder.js';
import { ScopeRef } from './scopes.js';
import { WindowEnum } from './scalars.js';
import type { Window } from '../domain/season.js';

const PerEnum = builder.enumType('RewardPer', {
  description:
    'Rank within each region, each group (docs/design.md#scopes) or each league cohort (a league season) rather than on the whole board.',
  values: ['REGION', 'GROUP', 'COHORT'] as const,
});

export const RewardRuleInput = builder.inputType('RewardRuleInput', {
  description: 'Who a rule rewards at the close: exactly one of fromRank..toRank, topPercent and everyone.',
  fields: (t) => ({
    name: t.string({ required: true, description: 'a-z, 0-9 and _, starting with a letter, at most 32; unique' }),
    board: t.string({
      required: false,
      description: "the board whose final ranks it reads; default the season's first",
    }),
    per: t.field({ type: PerEnum, required: false, description: 'rank within each region, group or cohort' }),
    fromRank: t.int({ required: false, description: 'the first final rank rewarded (ties share a rank)' }),
    toRank: t.int({ required: false, description: 'the last one (default fromRank)' }),
    topPercent: t.float({ required: false, description: 'every rank within the first ceil(size * p / 100) places' }),
    everyone: t.boolean({ required: false, description: 'every player ranked on the board' }),
    reward: t.field({
      type: 'JSONObject',
      required: true,
      description: "what the game's economy service grants (at most 1 KB of JSON: an item, an amount)",
    }),
  }),
});

export const RewardRuleRef = builder.objectRef<RewardRule>('RewardRule').implement({
  fields: (t) => ({
    name: t.exposeString('name'),
    board: t.exposeString('board'),
    window: t.field({ type: WindowEnum, resolve: (r) => r.window ?? 'SEASON' }),
    per: t.field({ type: PerEnum, nullable: true, resolve: (r) => r.per ?? null }),
    fromRank: t.int({ nullable: true, resolve: (r) => ('ranks' in r ? r.ranks.from : null) }),
    toRank: t.int({ nullable: true, resolve: (r) => ('ranks' in r ? r.ranks.to : null) }),
    topPercent: t.float({ nullable: true, resolve: (r) => ('topPercent' in r ? r.topPercent : null) }),
    everyone: t.boolean({ resolve: (r) => 'everyone' in r }),
    reward: t.field({ type: 'JSONObject', resolve: (r) => r.reward }),
  }),
});

const RewardRef = builder.objectRef<Reward>('Reward').implement({
  description: 'A reward granted to a player at a close, once.',
  fields: (t) => ({
    key: t.exposeString('key', {
      description: 'its idempotency key: season/board/window/period/scope/player/rule (the Kafka key too)',
    }),
    seasonId: t.exposeInt('seasonId'),
    board: t.exposeString('board'),
    window: t.field({ type: WindowEnum, resolve: (r) => r.window as Window }),
    period: t.exposeString('period', { description: "the period it was granted for; '' for SEASON" }),
    rule: t.exposeString('rule'),
    scope: t.field({ type: ScopeRef, nullable: true, resolve: (r) => r.scope || null }),
    playerId: t.exposeID('playerId'),
    rank: t.exposeInt('rank', { description: 'the final rank it was granted for (within its scope for a per rule)' }),
    points: t.exposeInt('points'),
    reward: t.field({ type: 'JSONObject', resolve: (r) => r.reward }),
    grantedAt: t.expose('grantedAt', { type: 'DateTime' }),
    claimedAt: t.expose('claimedAt', { type: 'DateTime', nullable: true, description: 'null: not claimed yet' }),
  }),
});

builder.queryField('rewards', (t) =>
  t.field({
    type: [RewardRef],
    description: `A player's rewards, newest first (at most \`first\`, 1..100); of one season when given.`,
    args: {
      playerId: t.arg.id({ required: true }),
      seasonId: t.arg.int({ required: false }),
      first: t.arg.int({ required: false, defaultValue: 50 }),
    },
    resolve: (_root, args, ctx) => {
      const first = args.first ?? 50;
      if (!Number.isInteger(first) || first < 1 || first > 100) throw badInput('first', 'first must be in 1..100');
      return ctx.services.rewards.forPlayer(parsePlayerId(args.playerId), args.seasonId ?? null, first);
    },
  }),
);

builder.mutationField('claimReward', (t) =>
  t.field({
    type: RewardRef,
    description:
      'Scope: submit (the game server, for its player). Marks a reward claimed; claiming it again returns it unchanged (claimedAt is the first claim). BAD_USER_INPUT on key: no such reward.',
    args: { key: t.arg.string({ required: true }) },
    resolve: async (_root, { key }, ctx) => {
      await requireScope(ctx, 'submit');
      const reward = await ctx.services.rewards.claim(key);
      if (!reward) throw badInput('key', 'no reward has this key');
      return reward;
    },
  }),
);

builder.subscriptionField('rewardGranted', (t) =>
  t.field({
    type: RewardRef,
    description: 'Each reward granted to the player from now on, as a close grants it (pushed at most once).',
    args: { playerId: t.arg.id({ required: true }) },
    subscribe: (_root, args, ctx) => ctx.services.live.rewardsOf(parsePlayerId(args.playerId)),
    resolve: (reward) => reward,
  }),
);
