import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AcceptedResult } from '../../src/domain/board-deltas.js';
import { createIngestConsumer } from '../../src/kafka/ingest-consumer.js';
import { createResultsStore } from '../../src/postgres/results-store.js';
import { createBoardWriter } from '../../src/redis/board-writer.js';
import { applyResults } from '../../src/service/apply-results.js';
import { createSeasonCache } from '../../src/service/season-cache.js';
import { expectStoredOnce } from '../support/assert-boards.js';
import { testConfig } from '../support/env.js';
import { generateResults, toRecords } from '../support/generate.js';
import { createSeason, createTopics, openServices, produceRaw, waitFor, type Services } from '../support/services.js';

const config = testConfig();
let s: Services;

beforeAll(async () => {
  s = openServices(config);
  await createTopics(s.kafka, config);
});

afterAll(async () => {
  await s?.close();
});

describe('the ingest consumer at a low rate', () => {
  it('applies the batches of every partition one fetch returned as one apply, not one per wave of partitions', async () => {
    const season = await createSeason(s, { name: 'grouping' });
    const { partitions } = config.kafka;
    expect(partitions).toBeGreaterThan(config.kafka.appliesInFlight);
    // Two results on each partition, all in Kafka before the consumer starts: its first fetch
    // returns a batch of every partition.
    const records = toRecords(generateResults(season, { results: 2 * partitions, players: 2 * partitions, seed: 7 }));
    await produceRaw(
      s.kafka,
      config.kafka.topic,
      records.map((r, i) => ({ ...r, partition: i % partitions })),
    );

    const store = createResultsStore(s.pg.sql);
    const boards = createBoardWriter(s.redis, config.windowTtlSeconds);
    // As the ingest role has it (app.ts): the batches' lookups of one season share one query.
    const seasons = createSeasonCache((id) => s.seasons.get(id));
    const applies: AcceptedResult[][] = [];
    let applied = 0;
    const consumer = createIngestConsumer({
      kafka: s.kafka,
      topic: config.kafka.topic,
      dlqTopic: config.kafka.dlqTopic,
      groupId: config.kafka.groupId,
      partitions,
      appliesInFlight: config.kafka.appliesInFlight,
      sessionTimeoutMs: config.kafka.sessionTimeoutMs,
      seasonById: (id) => seasons.get(id),
      apply: async (results, seasonOf) => {
        applies.push(results);
        const report = await applyResults({ store, boards, seasonOf, now: Date.now }, results);
        applied += results.length;
        return report;
      },
      logger: s.logger,
    });
    await consumer.start();
    try {
      await waitFor('every result applied', async () => applied >= records.length);
    } finally {
      await consumer.stop();
    }

    expect(applies.map((a) => new Set(a.map((r) => r.partition)).size)).toEqual([partitions]);
    await expectStoredOnce(s, season.id, records.length);
  });
});
