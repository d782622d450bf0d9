import { Kafka, logLevel, type Admin, type LogEntry } from 'kafkajs';
import type { Logger } from '../logger.js';

/** A kafkajs client whose logs go through pino. */
export function createKafka(opts: { brokers: readonly string[]; clientId: string; logger: Logger }): Kafka {
  const log = opts.logger.child({ component: 'kafkajs' });
  return new Kafka({
    clientId: opts.clientId,
    brokers: [...opts.brokers],
    logLevel: logLevel.WARN,
    retry: { initialRetryTime: 200, retries: 8 },
    logCreator: () => ({ level, log: entry }: LogEntry) => {
      const { message, ...rest } = entry;
      if (level <= logLevel.ERROR) log.error(rest, message);
      else if (level === logLevel.WARN) log.warn(rest, message);
      else log.debug(rest, message);
    },
  });
}

/** Creates the topic and its DLQ when missing (idempotent). */
export async function ensureTopics(admin: Admin, topic: string, dlqTopic: string, partitions: number): Promise<void> {
  const existing = new Set(await admin.listTopics());
  const missing = [
    { topic, numPartitions: partitions },
    { topic: dlqTopic, numPartitions: 1 },
  ].filter((t) => !existing.has(t.topic));
  if (missing.length === 0) return;
  // Concurrent creators race; createTopics answers false rather than failing for existing topics.
  await admin.createTopics({ topics: missing, waitForLeaders: true });
}
