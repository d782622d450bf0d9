import { SpanKind } from '@opentelemetry/api';
import { badInput } from '../domain/errors.js';
import { MAX_METADATA_BYTES } from '../domain/result-message.js';
import {
  MAX_DISPLAY_NAME_LENGTH,
  MAX_RESULTS_PER_MATCH,
  MAX_SEASONS_PER_MATCH,
  MAX_STATS_PER_RESULT,
} from '../domain/submission.js';
import { requireScope } from './auth.js';
import { builder } from './builder.js';
import { PlayerScopesInput } from './scopes.js';
import { inSpan } from '../tracing.js';

const StatInput = builder.inputType('StatInput', {
  description: "One named stat of a player's result (kills, lap_time): the boards that rank it count it.",
  fields: (t) => ({
    name: t.string({ required: true, description: 'a-z, 0-9 and _, starting with a letter, at most 32' }),
    value: t.int({
      required: true,
      description: 'within the range of each board that ranks it (BAD_USER_INPUT otherwise)',
    }),
  }),
});

const PlayerResultInput = builder.inputType('PlayerResultInput', {
  fields: (t) => ({
    playerId: t.id({ required: true, description: 'a positive 64-bit integer, as a string' }),
    points: t.int({
      required: false,
      description: "the stat 'points': 0..the season's maxPointsPerMatch (a season without boards needs it)",
    }),
    stats: t.field({
      type: [StatInput],
      required: false,
      description: `up to ${MAX_STATS_PER_RESULT} further stats; each board of the match's seasons counts the ones it ranks, and each stat must count on one`,
    }),
    displayName: t.string({
      required: false,
      description: `up to ${MAX_DISPLAY_NAME_LENGTH} characters, stored in NFC, never sent through Kafka or Redis; no control, invisible or bidirectional formatting characters (BAD_USER_INPUT)`,
    }),
    metadata: t.field({
      type: 'JSONObject',
      required: false,
      description: `up to ${MAX_METADATA_BYTES} bytes of JSON (the car, the character, a replay id); Entry.metadata shows the one of the result that set the standing`,
    }),
    scopes: t.field({
      type: PlayerScopesInput,
      required: false,
      description:
        "replaces the player's region and groups before this result counts (as setPlayerScopes); send it when they change: each costs ingest a step",
    }),
  }),
});

const MatchResultInput = builder.inputType('MatchResultInput', {
  fields: (t) => ({
    matchId: t.id({ required: true, description: 'a UUID; resubmitting the same matchId is safe' }),
    seasonId: t.int({ required: false, description: 'the season the match counts in (or seasonIds)' }),
    seasonIds: t.intList({
      required: false,
      description: `1..${MAX_SEASONS_PER_MATCH} active seasons the match counts in, once in each (instead of seasonId)`,
    }),
    endedAt: t.field({
      type: 'DateTime',
      required: true,
      description: 'when the match ended: picks its DAY and WEEK boards',
    }),
    results: t.field({
      type: [PlayerResultInput],
      required: true,
      description: `1..${MAX_RESULTS_PER_MATCH} results, one per player`,
    }),
  }),
});

const SubmitPayload = builder.objectRef<{ matchId: string; accepted: number }>('SubmitMatchResultPayload').implement({
  fields: (t) => ({
    matchId: t.exposeID('matchId'),
    accepted: t.exposeInt('accepted', {
      description: 'results durably in Kafka: one per player per board it counts on',
    }),
  }),
});

builder.mutationField('submitMatchResult', (t) =>
  t.field({
    type: SubmitPayload,
    description:
      'Scope: submit. Answers once Kafka acknowledged every result; UNAVAILABLE otherwise (retry with the same matchId).',
    args: { input: t.arg({ type: MatchResultInput, required: true }) },
    // The span its results' Kafka messages carry to ingest (docs/operations.md#traces).
    resolve: (_root, { input }, ctx) =>
      inSpan('submitMatchResult', { kind: SpanKind.SERVER }, async (span) => {
        span.setAttribute('ladder.match_id', String(input.matchId));
        const principal = await requireScope(ctx, 'submit');
        ctx.services.rateLimit('submit', `key:${principal.keyId}`);
        const { seasonId, seasonIds, ...match } = input;
        if ((seasonId == null) === (seasonIds == null))
          throw badInput('seasonIds', 'give exactly one of seasonId and seasonIds');
        return ctx.services.submit({ ...match, seasonIds: seasonIds ?? [seasonId!] }, principal);
      }),
  }),
);
