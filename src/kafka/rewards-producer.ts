import { CompressionTypes, type Kafka } from 'kafkajs';
import type { Reward } from '../domain/rewards.js';
import { seasonIdOf, type Season } from '../domain/season.js';
import { createIdempotentProducer } from './producer.js';

/** The rewards outbox in PostgreSQL (postgres/rewards-store.ts). */
interface RewardsOutbox {
  unpublished(seasonId: number, limit: number): Promise<Reward[]>;
  markPublished(keys: readonly string[]): Promise<void>;
}

const PAGE = 1_000;

/**
 * Sends granted rewards to the rewards topic for the game's economy service, keyed by their
 * idempotency key (docs/design.md#rewards): a page of unpublished rewards, then, once Kafka
 * acknowledged it (acks=all), marks them published. A crash between the two sends the page again
 * with the same keys: at least once on Kafka, deduplicated by the consumer on the key.
 */
export function createRewardsPublisher(
  kafka: Kafka,
  topic: string,
  outbox: RewardsOutbox,
  onPublished?: (rewards: Reward[]) => Promise<void>,
) {
  const producer = createIdempotentProducer(kafka, { maxInFlightRequests: 1 });
  let connecting: Promise<void> | undefined;
  return {
    /** Publishes every unpublished reward of the season; returns how many. */
    async publish(season: Season): Promise<number> {
      let sent = 0;
      for (;;) {
        const page = await outbox.unpublished(seasonIdOf(season), PAGE);
        if (page.length === 0) return sent;
        // Connected on the first reward to send: the scheduler's sweep asks for every recently
        // closed season, nearly always with nothing to send.
        await (connecting ??= producer.connect().catch((err: unknown) => {
          connecting = undefined;
          throw err;
        }));
        await producer.send({
          topic,
          compression: CompressionTypes.None,
          messages: page.map((r) => ({ key: r.key, value: JSON.stringify(r) })),
        });
        await outbox.markPublished(page.map((r) => r.key));
        sent += page.length;
        await onPublished?.(page);
      }
    },
    async stop(): Promise<void> {
      if (connecting) await producer.disconnect();
    },
  };
}
