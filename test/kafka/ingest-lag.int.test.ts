// The console's lag reading (src/kafka/ingest-lag.ts): the arithmetic on offsets, then against the
// real broker: a group that committed part of a topic lags by the rest, one that never committed
// lags by all of it, results/s is the committed offsets' growth between two readings, and the DLQ's
// size is what it holds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lagOf, ratePerSecond, readIngestLag, type IngestLag } from '../../src/kafka/ingest-lag.js';
import { testConfig } from '../support/env.js';
import { createTopics, openServices, produceRaw, type Services } from '../support/services.js';

describe('lagOf and ratePerSecond', () => {
  it('counts from the committed offset, or from the oldest message kept before a first commit', () => {
    const ends = [
      { partition: 1, low: '0', high: '10' },
      { partition: 0, low: '4', high: '9' },
      { partition: 2, low: '0', high: '0' },
    ];
    expect(
      lagOf(
        [
          { partition: 1, offset: '7' },
          { partition: 0, offset: '-1' },
        ],
        ends,
      ),
    ).toEqual({
      partitions: [
        { partition: 0, committed: null, high: '9', lag: 5 },
        { partition: 1, committed: '7', high: '10', lag: 3 },
        { partition: 2, committed: null, high: '0', lag: 0 },
      ],
      lag: 8,
      consumed: 11,
    });
  });

  it('is the consumed count over the seconds between two readings, within 10 minutes', () => {
    const at = (ms: number, consumed: number) => ({ at: ms, consumed }) as IngestLag;
    expect(ratePerSecond(undefined, at(1000, 50))).toBeNull();
    expect(ratePerSecond(at(1000, 50), at(3000, 250))).toBe(100);
    expect(ratePerSecond(at(1000, 50), at(1000, 60))).toBeNull();
    expect(ratePerSecond(at(0, 50), at(601_000, 60))).toBeNull();
  });
});

describe('readIngestLag on a real broker', () => {
  const config = testConfig({ KAFKA_PARTITIONS: '2' });
  let s: Services;
  beforeAll(async () => {
    s = openServices(config);
    await createTopics(s.kafka, config);
  });
  afterAll(() => s?.close());

  it('reads each partition against the group and the DLQ size', async () => {
    const { topic, dlqTopic, groupId } = config.kafka;
    await produceRaw(s.kafka, topic, [
      ...Array.from({ length: 5 }, (_, i) => ({ key: `a${i}`, value: '{}', partition: 0 })),
      ...Array.from({ length: 3 }, (_, i) => ({ key: `b${i}`, value: '{}', partition: 1 })),
    ]);
    await produceRaw(s.kafka, dlqTopic, [
      { key: '1', value: 'x' },
      { key: '2', value: 'y' },
    ]);
    const admin = s.kafka.admin();
    await admin.connect();
    try {
      const before = await readIngestLag(admin, config.kafka, () => 1_000);
      expect(before).toMatchObject({
        partitions: [
          { partition: 0, committed: null, high: '5', lag: 5 },
          { partition: 1, committed: null, high: '3', lag: 3 },
        ],
        lag: 8,
        consumed: 0,
        dlq: { partitions: [{ partition: 0, low: '0', high: '2' }], size: 2 },
      });
      await admin.setOffsets({ groupId, topic, partitions: [{ partition: 0, offset: '4' }] });
      const after = await readIngestLag(admin, config.kafka, () => 3_000);
      expect(after.partitions).toEqual([
        { partition: 0, committed: '4', high: '5', lag: 1 },
        { partition: 1, committed: null, high: '3', lag: 3 },
      ]);
      expect(after.lag).toBe(4);
      expect(ratePerSecond(before, after)).toBe(2);
    } finally {
      await admin.disconnect();
    }
  });
});
