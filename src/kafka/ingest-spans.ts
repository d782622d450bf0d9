// The spans of ingest's applies (docs/operations.md#traces). An apply of many chunks is one span,
// the root of its own trace, linked to the trace of every result it holds; each result also gets
// a short span in its submission's trace, linked back to the apply, so either side finds the other.
import { context, ROOT_CONTEXT, SpanKind, trace, type Context, type Span } from '@opentelemetry/api';
import type { KafkaMessage } from 'kafkajs';
import type { AcceptedResult } from '../domain/board-deltas.js';
import type { Logger } from '../logger.js';
import { contextOfHeaders, failed, tracer } from '../tracing.js';

/** A new root span for an apply of `count` results, and the context it is active in. */
export function applySpan(count: number): { span: Span; active: Context } {
  const span = tracer.startSpan(
    'process match results',
    { kind: SpanKind.CONSUMER, attributes: { 'messaging.batch.message_count': count } },
    ROOT_CONTEXT,
  );
  return { span, active: trace.setSpan(ROOT_CONTEXT, span) };
}

/**
 * For a recorded apply span: links it to each result's trace (the headers of its message) and
 * starts a span per result in that trace. end() ends them, logging each (debug) in its trace.
 */
export function resultSpans(
  apply: Span,
  chunks: ReadonlyArray<{ good: readonly AcceptedResult[]; messages: readonly KafkaMessage[] }>,
  log: Logger,
): { end(err?: unknown): void } {
  const started: Array<{ span: Span; result: AcceptedResult; ctx: Context }> = [];
  const link = { context: apply.spanContext() };
  for (const { good, messages } of chunks) {
    const byOffset = new Map(messages.map((m) => [m.offset, m]));
    for (const result of good) {
      const parent = contextOfHeaders(byOffset.get(result.offset)?.headers);
      const carried = trace.getSpanContext(parent);
      const attributes = {
        'ladder.match_id': result.matchId,
        'ladder.player_id': result.playerId,
        'ladder.season_id': result.seasonId,
        'messaging.kafka.partition': result.partition,
        'messaging.kafka.offset': result.offset,
      };
      if (carried) apply.addLink({ context: carried, attributes: { 'ladder.match_id': result.matchId } });
      const span = tracer.startSpan(
        'apply match result',
        { kind: SpanKind.CONSUMER, links: [link], attributes },
        parent,
      );
      started.push({ span, result, ctx: trace.setSpan(parent, span) });
    }
  }
  return {
    end(err) {
      for (const { span, result, ctx } of started) {
        if (err !== undefined) failed(span, err);
        else
          context.with(ctx, () =>
            log.debug(
              { matchId: result.matchId, playerId: result.playerId, seasonId: result.seasonId },
              'result applied',
            ),
          );
        span.end();
      }
    },
  };
}
