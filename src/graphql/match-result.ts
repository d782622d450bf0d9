import { badInput } from '../domain/errors.js';
import {
  MAX_DISPLAY_NAME_LENGTH,
  MAX_METADATA_BYTES,
  MAX_RESULTS_PER_MATCH,
  MAX_SEASONS_PER_MATCH,
} from '../domain/submission.js';
import { requireScope } from './auth.js';
import { builder } from './builder.js';

const PlayerResultInput = builder.inputType('PlayerResultInput', {
  fields: (t) => ({
    playerId: t.id({ required: true, description: 'a positive 64-bit integer, as a string' }),
    points: t.int({ required: true, description: "0..the season's maxPointsPerMatch" }),
    displayName: t.string({
      required: false,
      description: `up to ${MAX_DISPLAY_NAME_LENGTH} characters, stored in NFC, never sent through Kafka or Redis; no control, invisible or bidirectional formatting characters (BAD_USER_INPUT)`,
    }),
    metadata: t.field({
      type: 'JSONObject',
      required: false,
      description: `up to ${MAX_METADATA_BYTES} bytes of JSON (the car, the character, a replay id); Entry.metadata shows the one of the result that set the standing`,
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
    accepted: t.exposeInt('accepted', { description: 'results durably in Kafka: one per player per season' }),
  }),
});

builder.mutationField('submitMatchResult', (t) =>
  t.field({
    type: SubmitPayload,
    description:
      'Scope: submit. Answers once Kafka acknowledged every result; UNAVAILABLE otherwise (retry with the same matchId).',
    args: { input: t.arg({ type: MatchResultInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const principal = await requireScope(ctx, 'submit');
      ctx.services.rateLimit('submit', `key:${principal.keyId}`);
      const { seasonId, seasonIds, ...match } = input;
      if ((seasonId == null) === (seasonIds == null))
        throw badInput('seasonIds', 'give exactly one of seasonId and seasonIds');
      return ctx.services.submit({ ...match, seasonIds: seasonIds ?? [seasonId!] }, principal);
    },
  }),
);
