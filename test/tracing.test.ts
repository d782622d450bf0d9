import { context, propagation, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextOfHeaders, continueTrace, traceFields, traceHeaders } from '../src/tracing.js';
import { tracingWanted } from '../src/tracing-sdk.js';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const SPAN = 'b7ad6b7169203331';
const remote = trace.setSpanContext(ROOT_CONTEXT, { traceId: TRACE, spanId: SPAN, traceFlags: TraceFlags.SAMPLED });

describe('without an SDK (the default)', () => {
  it('carries nothing: no headers, no extracted span, no ids in log lines', () => {
    expect(traceHeaders(remote)).toBeUndefined();
    expect(trace.getSpanContext(contextOfHeaders({ traceparent: `00-${TRACE}-${SPAN}-01` }))).toBeUndefined();
    expect(traceFields()).toEqual({});
  });
});

describe('with the SDK registered (W3C trace context)', () => {
  const provider = new NodeTracerProvider();
  beforeAll(() => provider.register());
  afterAll(async () => {
    await provider.shutdown();
    propagation.disable();
    context.disable();
    trace.disable();
  });

  it('injects traceparent and tracestate, extracts them from kafkajs header values (Buffers)', () => {
    const withState = propagation.extract(ROOT_CONTEXT, {
      traceparent: `00-${TRACE}-${SPAN}-01`,
      tracestate: 'vendor=opaque',
    });
    const headers = traceHeaders(withState)!;
    expect(headers).toEqual({ traceparent: `00-${TRACE}-${SPAN}-01`, tracestate: 'vendor=opaque' });
    // As a consumer gets them: Buffers, next to other headers.
    const received = {
      'x-kind': Buffer.from('scopes'),
      traceparent: Buffer.from(headers.traceparent!),
      tracestate: Buffer.from(headers.tracestate!),
    };
    const extracted = trace.getSpanContext(contextOfHeaders(received))!;
    expect(extracted).toMatchObject({ traceId: TRACE, spanId: SPAN, isRemote: true });
    expect(extracted.traceState?.get('vendor')).toBe('opaque');
  });

  it('gives the root context for a message without (or with a malformed) traceparent', () => {
    expect(contextOfHeaders(undefined)).toBe(ROOT_CONTEXT);
    expect(trace.getSpanContext(contextOfHeaders({ 'x-kind': 'scopes' }))).toBeUndefined();
    expect(trace.getSpanContext(contextOfHeaders({ traceparent: 'garbage' }))).toBeUndefined();
    expect(traceHeaders(ROOT_CONTEXT)).toBeUndefined();
  });

  it('continues an incoming request trace; log fields name the active span', () => {
    const fields = continueTrace({ traceparent: `00-${TRACE}-${SPAN}-01` }, () => traceFields());
    expect(fields).toEqual({ trace_id: TRACE, span_id: SPAN });
    const child = continueTrace({ traceparent: `00-${TRACE}-${SPAN}-01` }, () =>
      trace.getTracer('t').startActiveSpan('child', (span) => {
        span.end();
        return traceFields();
      }),
    );
    expect(child.trace_id).toBe(TRACE);
    expect(child.span_id).not.toBe(SPAN);
    expect(traceFields()).toEqual({});
  });
});

describe('tracingWanted (the OTEL_* variables)', () => {
  it('is off by default and on for an OTLP exporter or endpoint', () => {
    expect(tracingWanted({})).toBe(false);
    expect(tracingWanted({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
    expect(tracingWanted({ OTEL_TRACES_EXPORTER: 'console,otlp' })).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
  });
  it('honours none and OTEL_SDK_DISABLED', () => {
    expect(tracingWanted({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBe(false);
    expect(tracingWanted({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' })).toBe(false);
  });
});
