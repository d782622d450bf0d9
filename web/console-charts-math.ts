// The console's live charts (web/console-charts.ts), the arithmetic: a reading of the few series
// the charts need from Prometheus text (what /metrics answers, every process of a cluster summed),
// then between two readings the rates (counter differences over the time between) and p99s (the
// histogram's buckets filled during that interval, interpolated as Prometheus's
// histogram_quantile does). Pure: no DOM, unit-tested in test/web/console-charts-math.test.ts.

/** A histogram's cumulative buckets: upper bound (Infinity last) → observations at or below it. */
type Buckets = Map<number, number>;

export interface Reading {
  /** When it was taken, ms. */
  at: number;
  /** ladder_results_ingested_total: results stored in PostgreSQL. */
  results: number;
  /** Queries executed (ladder_graphql_duration_seconds_count{operation_type="query"}) plus response cache hits. */
  reads: number;
  /** ladder_graphql_duration_seconds_bucket by operation_type: query (reads) and mutation (submissions). */
  readBuckets: Buckets;
  submitBuckets: Buckets;
  /** ladder_subscriptions, every kind. */
  subscriptions: number;
}

/** One point of every chart; a p99 is undefined when nothing was observed in the interval. */
export interface Point {
  at: number;
  resultsPerSecond: number;
  readsPerSecond: number;
  readP99Ms: number | undefined;
  submitP99Ms: number | undefined;
  subscriptions: number;
}

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The samples of Prometheus's text format (comments and blank lines skipped). */
export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const m = SAMPLE.exec(line.trim());
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(LABEL))
      labels[k!] = v!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

const DURATION = 'ladder_graphql_duration_seconds';

export function readingOf(text: string, at: number): Reading {
  const r: Reading = { at, results: 0, reads: 0, readBuckets: new Map(), submitBuckets: new Map(), subscriptions: 0 };
  for (const { name, labels, value } of parseSamples(text)) {
    const type = labels['operation_type'];
    if (name === 'ladder_results_ingested_total') r.results += value;
    else if (name === 'ladder_subscriptions') r.subscriptions += value;
    else if (name === 'ladder_response_cache_requests_total' && labels['result'] === 'hit') r.reads += value;
    else if (name === `${DURATION}_count` && type === 'query') r.reads += value;
    else if (name === `${DURATION}_bucket` && (type === 'query' || type === 'mutation')) {
      const buckets = type === 'query' ? r.readBuckets : r.submitBuckets;
      const le = labels['le'] === '+Inf' ? Infinity : Number(labels['le']);
      buckets.set(le, (buckets.get(le) ?? 0) + value);
    }
  }
  return r;
}

/** How much a counter grew; a counter that went down was reset (a process restarted): all of it is new. */
const increase = (before: number, after: number) => (after >= before ? after - before : after);

/**
 * The q-quantile of the observations made between two readings of a histogram, in its unit:
 * linear within the bucket it falls in (from 0 in the first); in the +Inf bucket, the highest
 * finite bound. Undefined when nothing was observed.
 */
export function quantile(q: number, before: Buckets, after: Buckets): number | undefined {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const reset = bounds.some((le) => (after.get(le) ?? 0) < (before.get(le) ?? 0));
  const filled = bounds.map((le) => (after.get(le) ?? 0) - (reset ? 0 : (before.get(le) ?? 0)));
  const total = filled.at(-1) ?? 0;
  if (total <= 0) return undefined;
  const rank = q * total;
  const i = filled.findIndex((n) => n >= rank);
  const upper = bounds[i]!;
  const lower = i === 0 ? 0 : bounds[i - 1]!;
  if (upper === Infinity) return lower;
  const below = i === 0 ? 0 : filled[i - 1]!;
  return lower + (upper - lower) * ((rank - below) / (filled[i]! - below));
}

/** The charts' point for the interval between two readings. */
export function pointBetween(before: Reading, after: Reading): Point {
  const seconds = Math.max((after.at - before.at) / 1000, 0.001);
  const ms = (s: number | undefined) => (s === undefined ? undefined : s * 1000);
  return {
    at: after.at,
    resultsPerSecond: increase(before.results, after.results) / seconds,
    readsPerSecond: increase(before.reads, after.reads) / seconds,
    readP99Ms: ms(quantile(0.99, before.readBuckets, after.readBuckets)),
    submitP99Ms: ms(quantile(0.99, before.submitBuckets, after.submitBuckets)),
    subscriptions: after.subscriptions,
  };
}

/**
 * An SVG polyline's `points` for values at instants, in a `width` × `height` box: time from
 * `from` to `to` left to right, 0 to `max` bottom to top. Missing values are left out.
 */
export function polylinePoints(
  values: Array<{ at: number; value: number | undefined }>,
  box: { from: number; to: number; max: number; width: number; height: number },
): string {
  const span = Math.max(box.to - box.from, 1);
  const max = box.max > 0 ? box.max : 1;
  const round = (n: number) => Math.round(n * 10) / 10;
  return values
    .filter((v): v is { at: number; value: number } => v.value !== undefined)
    .map((v) => `${round(((v.at - box.from) / span) * box.width)},${round(box.height - (v.value / max) * box.height)}`)
    .join(' ');
}
