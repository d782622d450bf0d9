import { RedisPubSub } from 'graphql-redis-subscriptions';
import type { Redis } from 'ioredis';
import { DomainError } from '../domain/errors.js';
import type { Window } from '../domain/season.js';
import { allUpdatesPattern, seasonOfChannel, updatesChannel } from './keys.js';

/** A board update as applyStandings-3.lua publishes it. */
export interface RawUpdate {
  /** Board label: "SEASON", "DAY:2026-11-30", "WEEK:2026-W49". */
  b: string;
  /** Player id. */
  m: string;
  /** New composite score, an integer string. */
  s: string;
  /** Rank on that board right after the update. */
  r: number;
  /** "reset" when a score was lowered or removed (setStandings-3.lua) rather than raised. */
  k?: 'reset';
  /** Season id, added on receipt from the channel name. */
  seasonId: number;
}

/** Splits an update's board label into window and period. */
export function boardOfLabel(label: string): { window: Window; period: string } {
  const i = label.indexOf(':');
  return i < 0 ? { window: 'SEASON', period: '' } : { window: label.slice(0, i) as Window, period: label.slice(i + 1) };
}

/**
 * Board updates over Redis pub/sub, through graphql-redis-subscriptions. Pub/sub is at most once:
 * every live stream starts from a snapshot (see live-updates.ts), so a lost event only delays.
 * Two connections: a subscribed ioredis client can issue no other command.
 */
export function createLivePubSub(publisher: Redis, subscriber: Redis) {
  const pubsub = new RedisPubSub({
    publisher,
    subscriber,
    deserializer: (message: string | Buffer, { channel }: { channel: string }) =>
      ({ ...JSON.parse(message.toString()), seasonId: seasonOfChannel(channel) }),
  });
  let closed = false;
  // graphql-redis-subscriptions leaves a failed first SUBSCRIBE as an unhandled rejection (its
  // internal Deferred has no listener), so a subscription is only started on a live connection.
  const assertUsable = () => {
    if (closed || subscriber.status !== 'ready') {
      throw new DomainError('UNAVAILABLE', 'live updates are unavailable right now; retry');
    }
  };
  return {
    pubsub,
    /**
     * Calls `onUpdate` for every update of one season; returns the unsubscribe. The Redis channel
     * subscription is shared and reference-counted: the last unsubscribe leaves the channel.
     */
    async onSeasonUpdate(seasonId: number, onUpdate: (u: RawUpdate) => void): Promise<() => void> {
      assertUsable();
      const id = await pubsub.subscribe<RawUpdate>(updatesChannel(seasonId), onUpdate);
      return () => pubsub.unsubscribe(id);
    },
    /** Calls `onUpdate` for every update of every season (cache invalidation); returns the unsubscribe. */
    async onAnyUpdate(onUpdate: (u: RawUpdate) => void): Promise<() => void> {
      const id = await pubsub.subscribe<RawUpdate>(allUpdatesPattern, onUpdate, { pattern: true });
      return () => pubsub.unsubscribe(id);
    },
    close: () => {
      closed = true;
      return pubsub.close();
    },
  };
}
