// One matchId followed under one trace: the mutation (continuing the request's traceparent), its
// Kafka publish, ingest's apply of the result and its PostgreSQL and Redis writes, and the log lines.
import { randomBytes, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { context, propagation, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { minutesFromNow, startApi, type TestApi } from '../support/api.js';
import { waitFor } from '../support/services.js';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const lines: Array<Record<string, unknown>> = [];
const logger = createLogger(
  'debug',
  new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  }),
);

let api: TestApi;
let admin: string;
let submitter: string;

beforeAll(async () => {
  provider.register();
  api = await startApi({}, { logger });
  admin = await api.key('admin');
  submitter = await api.key('submit');
});
afterAll(async () => {
  await api?.close();
  await provider.shutdown();
  propagation.disable();
  context.disable();
  trace.disable();
});

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const spansOf = (traceId: string, name: string) =>
  exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId && s.name === name);
const only = (spans: ReadableSpan[]) => {
  expect(spans).toHaveLength(1);
  return spans[0]!;
};

async function post(query: string, variables: Record<string, unknown>, headers: Record<string, string>) {
  const res = await fetch(api.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as { data?: any; errors?: Array<{ extensions?: { code?: string } }> };
}

it('follows a matchId from the request to its Redis write under the trace of its traceparent', async () => {
  const created = await post(
    `mutation($input: CreateSeasonInput!) { createSeason(input: $input) { id } }`,
    {
      input: {
        name: 'traces',
        startsAt: minutesFromNow(-60),
        endsAt: minutesFromNow(60),
        scoring: 'BEST',
        maxPointsPerMatch: 1000,
      },
    },
    { authorization: `Bearer ${admin}` },
  );
  const seasonId = created.data.createSeason.id as number;

  const traceId = hex(16);
  const callerSpan = hex(8);
  const matchId = randomUUID();
  const players = ['7100000001', '7100000002'];
  const submitted = await post(
    `mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { accepted } }`,
    {
      input: {
        matchId,
        seasonId,
        endedAt: minutesFromNow(-1),
        results: players.map((playerId, i) => ({ playerId, points: 100 + i })),
      },
    },
    { authorization: `Bearer ${submitter}`, traceparent: `00-${traceId}-${callerSpan}-01` },
  );
  expect(submitted.errors).toBeUndefined();
  expect(submitted.data.submitMatchResult.accepted).toBe(2);

  // Each result applied (its span ends after the apply's PostgreSQL and Redis writes), and on the board.
  await waitFor('both results applied', async () => spansOf(traceId, 'apply match result').length === 2);
  const board = await post(`{ leaderboard(seasonId: ${seasonId}) { size } }`, {}, {});
  expect(board.data.leaderboard.size).toBe(2);

  // The request's trace: the mutation continues the caller's span, the publish is its child, and
  // each result's apply span is a child of the publish span, whose context the message carried.
  const submit = only(spansOf(traceId, 'submitMatchResult'));
  expect(submit.parentSpanContext?.spanId).toBe(callerSpan);
  expect(submit.attributes['ladder.match_id']).toBe(matchId);
  const publish = only(spansOf(traceId, 'publish match results'));
  expect(publish.parentSpanContext?.spanId).toBe(submit.spanContext().spanId);
  const applied = spansOf(traceId, 'apply match result');
  for (const span of applied) {
    expect(span.parentSpanContext?.spanId).toBe(publish.spanContext().spanId);
    expect(span.attributes['ladder.match_id']).toBe(matchId);
  }
  expect(applied.map((s) => s.attributes['ladder.player_id']).sort()).toEqual(players);

  // Each result span links to the apply that held it; that apply links back to the request's
  // trace, and its PostgreSQL and Redis writes are its children.
  const applyIds = new Set(applied.flatMap((s) => s.links.map((l) => l.context.spanId)));
  const applies = exporter.getFinishedSpans().filter((s) => applyIds.has(s.spanContext().spanId));
  expect(applies.length).toBeGreaterThanOrEqual(1);
  for (const apply of applies) {
    expect(apply.name).toBe('process match results');
    const toRequest = apply.links.filter((l) => l.context.traceId === traceId);
    expect(toRequest.length).toBeGreaterThanOrEqual(1);
    expect(toRequest.every((l) => l.attributes?.['ladder.match_id'] === matchId)).toBe(true);
    const children = exporter
      .getFinishedSpans()
      .filter((s) => s.parentSpanContext?.spanId === apply.spanContext().spanId)
      .map((s) => s.name);
    expect(children).toContain('postgres store results');
    expect(children).toContain('redis write boards');
  }
  expect(applies.flatMap((a) => a.links.filter((l) => l.context.traceId === traceId))).toHaveLength(2);

  // Log lines: each result applied, in the request's trace; each apply in its own.
  const resultLines = lines.filter((l) => l.msg === 'result applied' && l.matchId === matchId);
  expect(resultLines).toHaveLength(2);
  for (const l of resultLines) expect(l.trace_id).toBe(traceId);
  for (const apply of applies)
    expect(lines.some((l) => l.msg === 'chunk applied' && l.span_id === apply.spanContext().spanId)).toBe(true);
});

it('starts a new trace at the mutation for a request without a traceparent', async () => {
  const before = new Set(exporter.getFinishedSpans().map((s) => s.spanContext().spanId));
  const res = await post(
    `mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { accepted } }`,
    { input: { matchId: randomUUID(), seasonId: 1, endedAt: minutesFromNow(-1), results: [] } },
    { authorization: `Bearer ${submitter}` },
  );
  expect(res.errors).toBeDefined();
  const submit = exporter
    .getFinishedSpans()
    .find((s) => s.name === 'submitMatchResult' && !before.has(s.spanContext().spanId))!;
  expect(submit.parentSpanContext).toBeUndefined();
  expect(submit.status.code).toBe(SpanStatusCode.ERROR);
});

it('a refused request logs under the trace of its traceparent', async () => {
  const traceId = hex(16);
  const res = await post(
    `mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { accepted } }`,
    { input: { matchId: randomUUID(), seasonId: 1, endedAt: minutesFromNow(-1), results: [] } },
    { traceparent: `00-${traceId}-${hex(8)}-01` },
  );
  expect(res.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  expect(lines.some((l) => l.msg === 'request refused' && l.trace_id === traceId)).toBe(true);
});
