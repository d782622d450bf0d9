import { Kafka, logLevel, type Admin, type LogEntry } from 'kafkajs';
import type { Logger } from '../logger.js';
// Stops kafkajs 2.2.4's 1 ms timer loop on idle broker connections (tulios/kafkajs#1556), for every
// client this module creates: the reason and the tests are in that file.
import './kafkajs-idle-queues.js';

// kafkajs logs at error much of what it retries by itself. Matched on its message and the
// error it carries, most specific first.
const KAFKAJS_LEVELS: Array<[RegExp, 'info' | 'warn' | 'debug']> = [
  // Group membership at work: another instance joining or leaving, the coordinator moving.
  [/rebalanc|not aware of this member|coordinator is (loading|not available)|not the correct coordinator/i, 'info'],
  // A consumer crash: the ingest consumer logs its CRASH event, with kafkajs' decision to restart.
  [/^Crash: /, 'debug'],
  // Retried: broker connections, a request answered with a retriable error, a send retried.
  [
    /^(Connection error|Connection timeout|Failed to connect|Restarting the consumer|Response |Failed to send messages)/,
    'warn',
  ],
];

/** The pino level of a kafkajs log entry: error only for errors kafkajs does not retry on its own. */
export function kafkaLogLevel(level: logLevel, message: string, error?: unknown): 'error' | 'warn' | 'info' | 'debug' {
  const natural = level <= logLevel.ERROR ? 'error' : level === logLevel.WARN ? 'warn' : 'debug';
  if (natural === 'debug') return natural;
  const text = typeof error === 'string' ? `${message}: ${error}` : message;
  return KAFKAJS_LEVELS.find(([pattern]) => pattern.test(text))?.[1] ?? natural;
}

/** A kafkajs client whose logs go through pino, one line per entry (no stacks). */
export function createKafka(opts: { brokers: readonly string[]; clientId: string; logger: Logger }): Kafka {
  const log = opts.logger.child({ component: 'kafkajs' });
  return new Kafka({
    clientId: opts.clientId,
    brokers: [...opts.brokers],
    logLevel: logLevel.WARN,
    retry: { initialRetryTime: 200, retries: 8 },
    logCreator:
      () =>
      ({ namespace, level, log: entry }: LogEntry) => {
        const { message, stack: _stack, timestamp: _timestamp, logger: _logger, ...rest } = entry;
        log[kafkaLogLevel(level, message, rest.error)]({ namespace, ...rest }, message);
      },
  });
}

/** Creates the topic, its DLQ and the rewards topic when missing (idempotent). */
async function ensureTopics(admin: Admin, topics: Topics): Promise<void> {
  const existing = new Set(await admin.listTopics());
  const missing = [
    { topic: topics.topic, numPartitions: topics.partitions },
    { topic: topics.dlqTopic, numPartitions: 1 },
    ...(topics.rewardsTopic ? [{ topic: topics.rewardsTopic, numPartitions: topics.partitions }] : []),
  ].filter((t) => !existing.has(t.topic));
  if (missing.length === 0) return;
  // Concurrent creators race; createTopics answers false rather than failing for existing topics.
  try {
    await admin.createTopics({ topics: missing, waitForLeaders: true });
  } catch (err) {
    // A just-created topic's metadata can lag on a fresh broker: kafkajs's wait for leaders retries
    // LEADER_NOT_AVAILABLE only and gives up on UNKNOWN_TOPIC_OR_PARTITION. Wait for it here.
    if ((err as { type?: string }).type !== 'UNKNOWN_TOPIC_OR_PARTITION') throw err;
    await waitForTopics(
      admin,
      missing.map((t) => t.topic),
    );
  }
}

async function waitForTopics(admin: Admin, topics: string[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await admin.fetchTopicMetadata({ topics });
      return;
    } catch (err) {
      if (attempt >= 20 || (err as { type?: string }).type !== 'UNKNOWN_TOPIC_OR_PARTITION') throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

interface Topics {
  topic: string;
  dlqTopic: string;
  rewardsTopic?: string;
  partitions: number;
}

/** Connects an admin client just long enough to make sure the topics exist. */
export async function ensureTopicsExist(kafka: Kafka, topics: Topics): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await ensureTopics(admin, topics);
  } finally {
    await admin.disconnect();
  }
}
