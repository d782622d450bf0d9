// The dead-letter topic as the console reads and replays it (docs/operations.md#console): a range
// of one DLQ partition read by a short-lived consumer (its own group, nothing committed), each
// record with the why and where from that classify-chunk.ts dlqRecords put in its headers; and
// dead letters republished, their key and value as they came, to the results topic.
import { randomUUID } from 'node:crypto';
import type { Kafka, KafkaMessage } from 'kafkajs';
import { readIngestLag } from './ingest-lag.js';
import { createIdempotentProducer } from './producer.js';

/** One DLQ record. */
export interface DeadLetter {
  partition: number;
  offset: string;
  /** When it was dead-lettered (the record's CreateTime), ISO-8601. */
  timestamp: string;
  key: string | null;
  value: string;
  /** Why: the error code, field and message of the refusal. */
  code: string;
  field: string;
  reason: string;
  /** Where from: the results topic, partition and offset of the original message. */
  source: { topic: string; partition: number | null; offset: string | null };
}

const header = (m: KafkaMessage, name: string): string | null => {
  const v = m.headers?.[name];
  return v === undefined ? null : String(v);
};

/** A DLQ record as the console shows it. */
function deadLetterOf(partition: number, m: KafkaMessage): DeadLetter {
  const sourcePartition = header(m, 'x-source-partition');
  return {
    partition,
    offset: m.offset,
    timestamp: new Date(Number(m.timestamp)).toISOString(),
    key: m.key?.toString('utf8') ?? null,
    value: m.value?.toString('utf8') ?? '',
    code: header(m, 'x-error-code') ?? '',
    field: header(m, 'x-error-field') ?? '',
    reason: header(m, 'x-error-message') ?? '',
    source: {
      topic: header(m, 'x-source-topic') ?? '',
      partition: sourcePartition === null ? null : Number(sourcePartition),
      offset: header(m, 'x-source-offset'),
    },
  };
}

/** How long a read waits for its range before answering with what it has. */
const READ_TIMEOUT_MS = 15_000;

/**
 * The records of DLQ `partition` with offsets in [from, to), oldest first: a consumer in a group of
 * its own seeks to `from` and reads up to `to` (the caller bounds it by the high watermark).
 */
async function readRange(kafka: Kafka, topic: string, partition: number, from: bigint, to: bigint) {
  const out: DeadLetter[] = [];
  if (to <= from) return out;
  const consumer = kafka.consumer({
    groupId: `ladder-console-dlq-${randomUUID()}`,
    maxWaitTimeInMs: 100,
    allowAutoTopicCreation: false,
  });
  let arrived = () => {};
  const done = new Promise<void>((resolve) => (arrived = resolve));
  const timer = setTimeout(arrived, READ_TIMEOUT_MS);
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition: p, message }) => {
        const offset = BigInt(message.offset);
        if (p !== partition || offset < from) return;
        if (offset < to) out.push(deadLetterOf(p, message));
        if (offset >= to - 1n) arrived();
      },
    });
    consumer.seek({ topic, partition, offset: String(from) });
    await done;
  } finally {
    clearTimeout(timer);
    await consumer.disconnect();
  }
  // A fetch can repeat records after the seek: each offset once.
  return [...new Map(out.map((d) => [d.offset, d])).values()];
}

/** The console's view of ingest in Kafka: lag, dead letters, and their replay. */
export function createIngestInspector(kafka: Kafka, t: { topic: string; dlqTopic: string; groupId: string }) {
  return {
    dlqTopic: t.dlqTopic,
    async lag() {
      const admin = kafka.admin();
      await admin.connect();
      try {
        return await readIngestLag(admin, t);
      } finally {
        await admin.disconnect();
      }
    },
    readDeadLetters: (partition: number, from: bigint, to: bigint) => readRange(kafka, t.dlqTopic, partition, from, to),
    /** Sends the letters' key and value to the results topic; resolves once Kafka acknowledged all. */
    async republish(letters: ReadonlyArray<Pick<DeadLetter, 'key' | 'value'>>): Promise<void> {
      if (letters.length === 0) return;
      const producer = createIdempotentProducer(kafka, { maxInFlightRequests: 1 });
      await producer.connect();
      try {
        await producer.send({ topic: t.topic, messages: letters.map((l) => ({ key: l.key, value: l.value })) });
      } finally {
        await producer.disconnect();
      }
    },
  };
}

export type IngestInspector = ReturnType<typeof createIngestInspector>;
