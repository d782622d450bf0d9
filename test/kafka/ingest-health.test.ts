import { describe, expect, it } from 'vitest';
import { createIngestHealth, readinessOf, type IngestHealthState } from '../../src/kafka/ingest-health.js';

describe('ingest readiness', () => {
  const healthy: IngestHealthState = { joined: true, crashed: false, lastFetchAt: 100_000, retryingSince: 0 };
  it.each<[string, Partial<IngestHealthState>, number, { ok: boolean; reason?: string }]>([
    ['ready in the group, fetching', {}, 100_500, { ok: true }],
    ['ready 30 s after the last fetch', {}, 130_000, { ok: true }],
    ['not ready past 30 s without a fetch', {}, 130_001, { ok: false, reason: 'no fetch for 30 s' }],
    [
      'not ready before joining the group',
      { joined: false },
      100_000,
      { ok: false, reason: 'not in the consumer group yet' },
    ],
    [
      'not ready once crashed for good, whatever else',
      { crashed: true, joined: false },
      0,
      { ok: false, reason: 'consumer crashed' },
    ],
    ['ready while retrying for a while', { retryingSince: 110_000 }, 120_000, { ok: true }],
    [
      'not ready retrying for over 30 s',
      { retryingSince: 90_000, lastFetchAt: 125_000 },
      120_001,
      { ok: false, reason: 'retrying for 30 s' },
    ],
  ])('%s', (_, over, now, readiness) => {
    expect(readinessOf({ ...healthy, ...over }, now)).toEqual(readiness);
  });

  it('follows the consumer: a join, fetches, a retry from its first failure to its success', () => {
    let now = 1_000;
    const health = createIngestHealth(() => now);
    expect(health.readiness()).toEqual({ ok: false, reason: 'not in the consumer group yet' });
    health.joined();
    health.fetched();
    expect(health.readiness()).toEqual({ ok: true });
    health.failed();
    now += 20_000;
    health.fetched();
    health.failed(); // the same retry: its clock started at the first failure
    now += 10_001;
    health.fetched();
    expect(health.readiness()).toEqual({ ok: false, reason: 'retrying for 30 s' });
    health.succeeded();
    expect(health.readiness()).toEqual({ ok: true });
    health.crashed();
    expect(health.readiness()).toEqual({ ok: false, reason: 'consumer crashed' });
  });
});
