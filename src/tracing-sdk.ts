// The OpenTelemetry SDK, started only when the standard OTEL_* variables ask for an OTLP export:
// OTEL_TRACES_EXPORTER=otlp, or an OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT. Otherwise nothing is
// loaded and the API (tracing.ts) stays its no-op. The exporter reads the rest itself
// (OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, ...), the resource OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES, the batch processor OTEL_BSP_*, the sampler OTEL_TRACES_SAMPLER(_ARG).

type Env = Record<string, string | undefined>;

/** Whether `env` asks for traces to be exported (docs/operations.md#traces). */
export function tracingWanted(env: Env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((e) => e.trim().toLowerCase());
  if (exporters.includes('none')) return false;
  if (exporters.includes('otlp')) return true;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Chunks ingest applies at once link to each message they hold (kafka/ingest-consumer.ts): up to
 * a few thousand, where the SDK keeps 128 by default.
 */
const LINKS_PER_SPAN = 8192;

/** Starts the SDK with an OTLP exporter if `env` asks for it; resolves to its shutdown (flushes). */
export async function startTracing(env: Env = process.env): Promise<() => Promise<void>> {
  if (!tracingWanted(env)) return async () => {};
  const [{ NodeTracerProvider }, { BatchSpanProcessor }, { OTLPTraceExporter }, resources] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-proto'),
    import('@opentelemetry/resources'),
  ]);
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': 'ladder' }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    spanLimits: { linkCountLimit: LINKS_PER_SPAN },
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  // Also the AsyncLocalStorage context manager and the W3C trace context (and baggage) propagator.
  provider.register();
  return () => provider.shutdown();
}
