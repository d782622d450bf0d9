// Traces through the OpenTelemetry API only: with no SDK registered (tracing-sdk.ts, off unless
// OTEL_* asks for it) every call here is the API's no-op, and nothing is allocated per result.
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type SpanOptions,
  type TextMapGetter,
} from '@opentelemetry/api';

export const tracer = trace.getTracer('ladder');

/** Kafka headers as kafkajs gives them: a value is a Buffer, a string, or several of them. */
type KafkaHeaders = Record<string, Buffer | string | Array<Buffer | string> | undefined>;

const kafkaGetter: TextMapGetter<KafkaHeaders> = {
  keys: (carrier) => Object.keys(carrier),
  get(carrier, key) {
    const value = carrier[key];
    if (value === undefined) return undefined;
    return Array.isArray(value) ? value.map(String) : String(value);
  },
};

/**
 * The headers (`traceparent`, `tracestate`) that carry `ctx`'s span to a consumer; undefined when
 * there is nothing to carry (no SDK, or no span in `ctx`), so a message keeps no empty headers.
 */
export function traceHeaders(ctx: Context = context.active()): Record<string, string> | undefined {
  const headers: Record<string, string> = {};
  propagation.inject(ctx, headers);
  for (const _ in headers) return headers;
  return undefined;
}

/** The context a message's headers carry (traceHeaders): ROOT_CONTEXT with the remote span, if any. */
export function contextOfHeaders(headers: KafkaHeaders | undefined): Context {
  return headers ? propagation.extract(ROOT_CONTEXT, headers, kafkaGetter) : ROOT_CONTEXT;
}

/** `fn` under the trace an incoming request's headers (`traceparent`, `tracestate`) carry, if any. */
export function continueTrace<T>(headers: Record<string, string | string[] | undefined>, fn: () => T): T {
  return context.with(propagation.extract(context.active(), headers), fn);
}

/** `fn` in a new active span, ended when it settles; a rejection marks the span as an error. */
export function inSpan<T>(name: string, options: SpanOptions, fn: (span: Span) => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, options, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      failed(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Marks `span` as failed by `err`. */
export function failed(span: Span, err: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}

/**
 * The active span's ids for a log line (logger.ts): empty when no span is valid. A new object
 * each time: pino merges the line's fields into it.
 */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const ids = span.spanContext();
  return trace.isSpanContextValid(ids) ? { trace_id: ids.traceId, span_id: ids.spanId } : {};
}
