// web/console-charts-math.ts: the live charts' reading of Prometheus text, rates from counter
// differences, p99 from the buckets filled between two readings, and the polylines drawn.
import { describe, expect, it } from 'vitest';
import { parseSamples, pointBetween, polylinePoints, quantile, readingOf } from '../../web/console-charts-math.js';

const buckets = (entries: Array<[number, number]>) => new Map(entries);

/** /metrics text as prom-client (and its cluster aggregation) writes it, with these values. */
function metricsText(v: { results: number; queries: number; hits: number; mutations: number[]; subs: number[] }) {
  const bounds = ['0.01', '0.1', '1', '+Inf'];
  const cumulative = (counts: number[]) => counts.map((_, i) => counts.slice(0, i + 1).reduce((a, b) => a + b, 0));
  return [
    '# HELP ladder_results_ingested_total Player results stored in PostgreSQL for the first time',
    '# TYPE ladder_results_ingested_total counter',
    `ladder_results_ingested_total ${v.results}`,
    `ladder_response_cache_requests_total{result="hit"} ${v.hits}`,
    `ladder_response_cache_requests_total{result="miss"} 1000`,
    ...bounds.map((le) => `ladder_graphql_duration_seconds_bucket{le="${le}",operation_type="query"} ${v.queries}`),
    `ladder_graphql_duration_seconds_count{operation_type="query"} ${v.queries}`,
    ...cumulative(v.mutations).map(
      (n, i) => `ladder_graphql_duration_seconds_bucket{le="${bounds[i]}",operation_type="mutation"} ${n}`,
    ),
    `ladder_graphql_duration_seconds_count{operation_type="mutation"} ${v.mutations.reduce((a, b) => a + b, 0)}`,
    ...v.subs.map((n, i) => `ladder_subscriptions{kind="k${i}"} ${n}`),
    'process_cpu_seconds_total 3.5',
    '',
  ].join('\n');
}

describe('parseSamples', () => {
  it.each([
    ['plain', 'a_total 3', { name: 'a_total', labels: {}, value: 3 }],
    ['labels', 'a{x="1",y="two"} 4.5', { name: 'a', labels: { x: '1', y: 'two' }, value: 4.5 }],
    ['escaped', 'a{x="say \\"hi\\", ok"} 1', { name: 'a', labels: { x: 'say "hi", ok' }, value: 1 }],
    ['+Inf bound', 'h_bucket{le="+Inf"} 7', { name: 'h_bucket', labels: { le: '+Inf' }, value: 7 }],
    ['timestamp after', 'a 2 1700000000000', { name: 'a', labels: {}, value: 2 }],
  ])('%s', (_, line, sample) => {
    expect(parseSamples(`# TYPE a counter\n\n${line}\n`)).toEqual([sample]);
  });
});

describe('readingOf', () => {
  it('sums the series the charts need', () => {
    const r = readingOf(metricsText({ results: 40, queries: 9, hits: 3, mutations: [5, 4, 1, 0], subs: [2, 5] }), 1000);
    expect(r).toMatchObject({ at: 1000, results: 40, reads: 12, subscriptions: 7 });
    expect([...r.submitBuckets]).toEqual([
      [0.01, 5],
      [0.1, 9],
      [1, 10],
      [Infinity, 10],
    ]);
    expect(r.readBuckets.get(Infinity)).toBe(9);
  });

  it('is all zero for text without them', () => {
    expect(readingOf('process_cpu_seconds_total 1\n', 0)).toMatchObject({ results: 0, reads: 0, subscriptions: 0 });
  });
});

describe('quantile', () => {
  const before = buckets([
    [0.01, 10],
    [0.1, 10],
    [1, 10],
    [Infinity, 10],
  ]);
  it.each([
    // [what, after, q, expected]
    ['nothing observed since', before, 0.99, undefined],
    [
      'all in the first bucket: from 0',
      buckets([
        [0.01, 110],
        [0.1, 110],
        [1, 110],
        [Infinity, 110],
      ]),
      0.5,
      0.005,
    ],
    [
      'interpolated in the second',
      buckets([
        [0.01, 10],
        [0.1, 110],
        [1, 110],
        [Infinity, 110],
      ]),
      0.99,
      0.0991,
    ],
    [
      'split 90/10: p99 in the third',
      buckets([
        [0.01, 100],
        [0.1, 100],
        [1, 110],
        [Infinity, 110],
      ]),
      0.99,
      0.91,
    ],
    [
      'in +Inf: the highest finite bound',
      buckets([
        [0.01, 10],
        [0.1, 10],
        [1, 10],
        [Infinity, 20],
      ]),
      0.99,
      1,
    ],
    [
      'a reset: the new counts alone',
      buckets([
        [0.01, 0],
        [0.1, 4],
        [1, 4],
        [Infinity, 4],
      ]),
      0.5,
      0.055,
    ],
  ])('%s', (_, after, q, expected) => {
    const got = quantile(q, before, after);
    if (expected === undefined) expect(got).toBeUndefined();
    else expect(got).toBeCloseTo(expected, 6);
  });
});

describe('pointBetween', () => {
  const at = (t: number, v: Parameters<typeof metricsText>[0]) => readingOf(metricsText(v), t);
  const first = at(10_000, { results: 100, queries: 50, hits: 10, mutations: [0, 0, 0, 0], subs: [1] });

  it.each([
    [
      'rates over the interval, p99 of what it observed',
      at(12_000, { results: 140, queries: 56, hits: 14, mutations: [0, 100, 0, 0], subs: [2, 1] }),
      { at: 12_000, resultsPerSecond: 20, readsPerSecond: 5, readP99Ms: 9.9, submitP99Ms: 99.1, subscriptions: 3 },
    ],
    [
      'nothing happened: zero rates, no p99',
      at(15_000, { results: 100, queries: 50, hits: 10, mutations: [0, 0, 0, 0], subs: [0] }),
      {
        at: 15_000,
        resultsPerSecond: 0,
        readsPerSecond: 0,
        readP99Ms: undefined,
        submitP99Ms: undefined,
        subscriptions: 0,
      },
    ],
    [
      'a counter reset (a restarted process): counted from 0',
      at(20_000, { results: 30, queries: 50, hits: 10, mutations: [0, 0, 0, 0], subs: [1] }),
      { resultsPerSecond: 3, readsPerSecond: 0 },
    ],
  ])('%s', (_, second, expected) => {
    const p = pointBetween(first, second);
    for (const [k, v] of Object.entries(expected)) {
      if (v === undefined) expect(p[k as keyof typeof p]).toBeUndefined();
      else expect(p[k as keyof typeof p]).toBeCloseTo(v, 6);
    }
  });
});

describe('polylinePoints', () => {
  const box = { from: 0, to: 100, max: 10, width: 200, height: 50 };
  it.each([
    [
      'time left to right, value bottom to top',
      [
        { at: 0, value: 0 },
        { at: 50, value: 5 },
        { at: 100, value: 10 },
      ],
      '0,50 100,25 200,0',
    ],
    [
      'missing values left out',
      [
        { at: 0, value: 10 },
        { at: 50, value: undefined },
      ],
      '0,0',
    ],
    ['max 0: a flat line at the bottom', [{ at: 100, value: 0 }], '200,50'],
  ])('%s', (_, values, expected) => {
    expect(polylinePoints(values, box)).toBe(expected);
  });
  it('max 0 stays drawable', () => {
    expect(polylinePoints([{ at: 0, value: 0 }], { ...box, max: 0 })).toBe('0,50');
  });
});
