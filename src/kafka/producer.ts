import {
  CompressionTypes,
  Partitioners,
  type Kafka,
  type Producer,
  type ProducerConfig,
  type ProducerRecord,
  type RecordMetadata,
} from 'kafkajs';
import type { MatchResultMessage } from '../domain/result-message.js';
import type { ScopesMessage } from '../domain/scopes.js';
import { traceHeaders } from '../tracing.js';

/**
 * An idempotent producer (acks=all, murmur2 partitioner) that starts over with a new producer
 * id after any send that failed.
 *
 * Why: kafkajs numbers each partition's batches for the broker's deduplication and, when a
 * request fails, takes the numbers back, although the broker may have written that batch (the
 * answer was lost when the broker died). While that send retries the same batch this is right:
 * the broker answers the repeat as a duplicate. Once the send gives up (its reconnects ran out
 * during a broker restart), the next send reuses the numbers for other messages, and the broker
 * either drops them as duplicates of the written batch, acknowledging what it never stored, or
 * refuses every later batch as out of order (kafkajs never recovers from that by itself). A new
 * producer id has no history, so neither can happen; a batch that was written after all is also
 * retried by its sender and stored once by ingest (matchId + playerId).
 */
export function createIdempotentProducer(kafka: Kafka, config: Omit<ProducerConfig, 'idempotent'> = {}) {
  const make = (): Producer =>
    kafka.producer({
      createPartitioner: Partitioners.DefaultPartitioner, // a key always lands on the same partition
      allowAutoTopicCreation: false,
      ...config,
      idempotent: true,
      // An idempotent producer must not give up on its own retries (kafkajs warns otherwise).
      retry: { retries: Number.MAX_SAFE_INTEGER, ...config.retry },
    });
  let producer = make();
  let inDoubt = false;
  let replacing: Promise<void> | undefined;

  /** Swaps in a new producer (new id); the old one is disconnected in the background. */
  async function replace(): Promise<void> {
    const old = producer;
    producer = make();
    void old.disconnect().catch(() => {});
    await producer.connect();
  }

  return {
    connect: () => producer.connect(),
    disconnect: () => producer.disconnect(),
    /** Resolves once the broker acknowledged every message (acks=all); rejects otherwise. */
    async send(record: Omit<ProducerRecord, 'acks'>): Promise<RecordMetadata[]> {
      if (inDoubt) {
        inDoubt = false;
        replacing ??= replace().finally(() => (replacing = undefined));
      }
      try {
        await replacing;
        return await producer.send({ ...record, acks: -1 });
      } catch (err) {
        inDoubt = true;
        throw err;
      }
    },
  };
}

/** Produces match results, one message per player result keyed by playerId. */
export function createResultProducer(kafka: Kafka, topic: string) {
  // Broker-side dedup of the producer's own retries. It does not dedup a game server's retry of a
  // whole submission (kafkajs #353): matchId + playerId does that.
  const producer = createIdempotentProducer(kafka, { maxInFlightRequests: 5 });
  let connected = false;
  return {
    async start() {
      await producer.connect();
      connected = true;
    },
    async stop() {
      connected = false;
      await producer.disconnect();
    },
    readiness: () => connected,
    /**
     * Resolves once Kafka acknowledged every message (acks=all); rejects otherwise. `headers[i]`:
     * the trace context (`traceparent`, `tracestate`) of `messages[i]`, if any.
     */
    async send(
      messages: readonly MatchResultMessage[],
      headers?: ReadonlyArray<Record<string, string> | undefined>,
    ): Promise<void> {
      await producer.send({
        topic,
        compression: CompressionTypes.None,
        messages: messages.map((m, i) => ({ key: m.playerId, value: JSON.stringify(m), headers: headers?.[i] })),
      });
    },
    /**
     * Sends changes of players' scopes to the same topic, keyed by player like their results, so
     * ingest applies each in order with them (service/apply-scopes.ts). Resolves once acknowledged.
     */
    async sendScopes(messages: readonly ScopesMessage[]): Promise<void> {
      // With the submission's trace context next to x-kind, when it has one.
      const trace = traceHeaders();
      const headers = trace ? { ...SCOPES_HEADERS, ...trace } : SCOPES_HEADERS;
      await producer.send({
        topic,
        compression: CompressionTypes.None,
        messages: messages.map((m) => ({ key: m.playerId, value: JSON.stringify(m), headers })),
      });
    },
  };
}

/** The header that marks a scopes message, so ingest tells one apart without parsing its value. */
const SCOPES_HEADERS = { 'x-kind': 'scopes' };

/** Is this message a change of a player's scopes (sendScopes)? */
export function isScopesMessage(message: { headers?: Record<string, unknown> }): boolean {
  const kind = message.headers?.['x-kind'];
  return kind !== undefined && String(kind) === 'scopes';
}

export type ResultProducer = ReturnType<typeof createResultProducer>;
