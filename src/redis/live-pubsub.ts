import { RedisPubSub } from 'graphql-redis-subscriptions';
import type { Redis } from 'ioredis';
import type { Window } from '../domain/season.js';
import type { BoardEvent, MemberChange } from '../service/board-events.js';
import { dbOf } from './client.js';
import { allUpdatesPattern, namesChannel, rewardsChannel, seasonOfChannel } from './keys.js';
import type { Reward } from '../domain/rewards.js';

/** A message as applyStandings-5, setStandings-4 and swapBoard-4 publish it. */
interface RawMessage {
  /** Board label: "SEASON", "DAY:2026-11-30", "WEEK:2026-W49". */
  b?: string;
  /** The board's version after the change, and the one before it (strings: see boardEvent-1.lua). */
  q?: string | number;
  p?: string | number;
  /**
   * No `k`: raised scores; `set`: ingest lowered a LAST board's score (and may have raised others);
   * `close`: the season closed and its keys are gone (no board, no version).
   */
  k?: 'set' | 'reset' | 'swap' | 'close';
  /** member, old score ("" when new), new score ("" when removed), rank (0 when removed), ... */
  u?: Array<string | number>;
}

/** Splits an update's board label into window, period and scope (keys.ts boardLabel). */
function boardOfLabel(label: string): { window: Window; period: string; scope?: string } {
  const at = label.indexOf('@');
  const board = at < 0 ? label : label.slice(0, at);
  const i = board.indexOf(':');
  const wp =
    i < 0
      ? { window: 'SEASON' as Window, period: '' }
      : { window: board.slice(0, i) as Window, period: board.slice(i + 1) };
  return at < 0 ? wp : { ...wp, scope: label.slice(at + 1) };
}

/** Granted rewards as season-jobs.ts publishes them (JSON: dates as ISO strings). */
function decodeRewards(message: string): Reward[] {
  const list = JSON.parse(message) as Array<Reward & { grantedAt: string; claimedAt: string | null }>;
  return list.map((r) => ({
    ...r,
    grantedAt: new Date(r.grantedAt),
    claimedAt: r.claimedAt ? new Date(r.claimedAt) : null,
  }));
}

/** A published message as a BoardEvent. */
export function decodeBoardEvent(channel: string, message: string): BoardEvent {
  const raw = JSON.parse(message) as RawMessage;
  if (typeof raw !== 'object' || raw === null) throw new TypeError('not a board event');
  const seasonId = seasonOfChannel(channel);
  if (raw.k === 'close') return { seasonId, window: 'SEASON', period: '', version: 0, kind: 'close', changes: [] };
  const version = Number(raw.q);
  const previous = raw.p === undefined ? version - 1 : Number(raw.p);
  if (typeof raw.b !== 'string' || ![version, previous, seasonId].every(Number.isSafeInteger))
    throw new TypeError('not a board event');
  const changes: MemberChange[] = [];
  // cjson encodes an empty Lua table as {}: no `u`, or not an array, means no member changes.
  const u = Array.isArray(raw.u) ? raw.u : [];
  for (let i = 0; i + 3 < u.length; i += 4) {
    changes.push({
      playerId: String(u[i]),
      old: u[i + 1] === '' ? null : String(u[i + 1]),
      score: u[i + 2] === '' ? null : String(u[i + 2]),
      rank: Number(u[i + 3]),
    });
  }
  return { seasonId, ...boardOfLabel(raw.b), version, previous, kind: raw.k ?? 'raise', changes };
}

/**
 * Board update events over Redis pub/sub (graphql-redis-subscriptions): one pattern subscription
 * per process, fanned out in memory (service/live-updates.ts), since every process needs every
 * event for its caches anyway. Pub/sub is at most once: `onLost` runs when the subscriber
 * connection came back after a drop, and whoever caches must then forget what it holds.
 */
export function createLivePubSub(publisher: Redis, subscriber: Redis) {
  const names = namesChannel(dbOf(publisher));
  const rewards = rewardsChannel(dbOf(publisher));
  const pubsub = new RedisPubSub({
    publisher,
    subscriber,
    // A message this version cannot read (another version of ladder mid-deploy) is skipped, not thrown
    // into ioredis's event handler, where it would end the process.
    deserializer: (message: string | Buffer, { channel }: { channel: string }) => {
      try {
        if (channel === names) return JSON.parse(message.toString());
        if (channel === rewards) return decodeRewards(message.toString());
        return decodeBoardEvent(channel, message.toString());
      } catch {
        return undefined;
      }
    },
  });
  let closed = false;
  let wasReady = false;
  return {
    /** Whether events are flowing now (a subscription started while not would wait in vain). */
    usable: () => !closed && subscriber.status === 'ready',
    /**
     * Calls `onEvent` for every update of every season, `onNames` with the ids of players whose
     * display name changed, `onLost` after a reconnect; returns the unsubscribe.
     */
    async subscribe(on: {
      event(e: BoardEvent): void;
      names(ids: string[]): void;
      rewards?(granted: Reward[]): void;
      lost(): void;
    }): Promise<() => void> {
      const onReady = () => {
        if (wasReady) on.lost();
        wasReady = true;
      };
      subscriber.on('ready', onReady);
      if (subscriber.status === 'ready') wasReady = true;
      const ids = [
        await pubsub.subscribe<BoardEvent>(
          allUpdatesPattern(dbOf(subscriber)),
          (e) => {
            if (e) on.event(e);
          },
          { pattern: true },
        ),
        await pubsub.subscribe<string[]>(names, (n) => {
          if (Array.isArray(n)) on.names(n.map(String));
        }),
        await pubsub.subscribe<Reward[]>(rewards, (r) => {
          if (Array.isArray(r)) on.rewards?.(r);
        }),
      ];
      return () => {
        subscriber.off('ready', onReady);
        for (const id of ids) pubsub.unsubscribe(id);
      };
    },
    /** Announces display-name changes to every process. */
    async publishNames(ids: readonly string[]): Promise<void> {
      if (ids.length > 0) await publisher.publish(names, JSON.stringify(ids));
    },
    close: () => {
      closed = true;
      return pubsub.close();
    },
  };
}
