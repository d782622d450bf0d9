// Operations' own tables: which dead letters the console replayed (console/ingest.ts), so a replay
// is done once and "replay all" skips it. Re-exported by schema.ts, the one schema module the code
// imports.
import { bigint, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { tstz } from './schema-columns.js';

/**
 * One row per dead letter replayed to the results topic: its topic, partition and offset in the
 * DLQ, who replayed it and when. Written in the transaction that waits for Kafka's acknowledgement
 * of the republished message, so a row means it was sent.
 */
export const dlqReplays = pgTable(
  'dlq_replays',
  {
    dlqTopic: text('dlq_topic').notNull(),
    partition: integer('partition').notNull(),
    offset: bigint('offset', { mode: 'bigint' }).notNull(),
    replayedAt: tstz('replayed_at').notNull().defaultNow(),
    actor: text('actor').notNull(),
  },
  (t) => [primaryKey({ columns: [t.dlqTopic, t.partition, t.offset] })],
);
