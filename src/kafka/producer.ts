import { CompressionTypes, Partitioners, type Kafka, type Producer } from 'kafkajs';
import type { MatchResultMessage } from '../domain/submission.js';

/** Produces match results, one message per player result keyed by playerId. */
export function createResultProducer(kafka: Kafka, topic: string) {
  // Idempotent (acks=all): broker-side dedup of the producer's own retries. It does not dedup a
  // game server's retry of a whole submission (kafkajs #353): matchId + playerId does that.
  const producer: Producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 5,
    allowAutoTopicCreation: false,
    // The default (murmur2, as the Java client): a key always lands on the same partition.
    createPartitioner: Partitioners.DefaultPartitioner,
    // An idempotent producer must not give up on its own retries (kafkajs warns otherwise);
    // kafkajs still stops after maxRetryTime (30 s), and submit answers UNAVAILABLE before that.
    retry: { retries: Number.MAX_SAFE_INTEGER },
  });
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
    /** Resolves once Kafka acknowledged every message (acks=all); rejects otherwise. */
    async send(messages: readonly MatchResultMessage[]): Promise<void> {
      await producer.send({
        topic,
        acks: -1,
        compression: CompressionTypes.None,
        messages: messages.map((m) => ({ key: m.playerId, value: JSON.stringify(m) })),
      });
    },
  };
}

export type ResultProducer = ReturnType<typeof createResultProducer>;
