import { describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config.js';

describe('parseConfig: ingest concurrency', () => {
  it.each([
    { env: {}, applies: 3, partitions: 6 },
    { env: { INGEST_APPLIES_IN_FLIGHT: '1' }, applies: 1, partitions: 6 },
    { env: { INGEST_APPLIES_IN_FLIGHT: '8', KAFKA_PARTITIONS: '12' }, applies: 8, partitions: 12 },
  ])('$env → $applies applies in flight over $partitions partitions', ({ env, applies, partitions }) => {
    const { kafka } = parseConfig(env);
    expect(kafka.appliesInFlight).toBe(applies);
    expect(kafka.partitions).toBe(partitions);
  });

  it.each([
    { env: { INGEST_APPLIES_IN_FLIGHT: '0' }, message: /INGEST_APPLIES_IN_FLIGHT: Too small/ },
    // The old name would be ignored silently: it fails, naming the new one.
    {
      env: { KAFKA_PARTITIONS_CONCURRENTLY: '3' },
      message: /^invalid configuration: KAFKA_PARTITIONS_CONCURRENTLY: renamed INGEST_APPLIES_IN_FLIGHT$/,
    },
  ])('$env is refused', ({ env, message }) => {
    expect(() => parseConfig(env)).toThrow(message);
  });
});
