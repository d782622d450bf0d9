// Where the update events an API process hears from Redis go (redis/live-pubsub.ts subscribe):
// the board versions first, since the caches read them, then whatever pushes to clients.
import type { Reward } from '../domain/rewards.js';
import type { BoardEvent } from './board-events.js';

/** What hears the events, each reduced to the calls routing makes. */
export interface BoardEventTargets {
  /** The board versions (board-events.ts): `note` is false when a board's version went down. */
  versions: { note(e: BoardEvent): boolean; forgetAll(): void };
  rankWatcher: { note(e: BoardEvent): void; resync(seasonId?: number): Promise<void> };
  /** The top cache (top-cache.ts): the event's board moves to it, or watched tops of the season are re-read soon. */
  topCache: { heard(e: BoardEvent): void };
  /** Live subscriptions (live-updates.ts). */
  live: { note(e: BoardEvent): void; granted?(rewards: readonly Reward[]): void };
  seasons: { invalidate(seasonId: number): void };
  names: { invalidate(playerIds: readonly string[]): void; clear(): void };
}

/** The handlers of a live pub/sub subscription: board events, display-name changes, a lost connection. */
export function routeBoardEvents(t: BoardEventTargets) {
  return {
    event(e: BoardEvent): void {
      // A version that went down: Redis lost the board's history; re-read what we watch.
      if (!t.versions.note(e)) void t.rankWatcher.resync(e.seasonId);
      if (e.kind === 'close') t.seasons.invalidate(e.seasonId);
      t.rankWatcher.note(e);
      t.topCache.heard(e);
      t.live.note(e);
    },
    names(playerIds: string[]): void {
      t.names.invalidate(playerIds);
    },
    rewards(rewards: Reward[]): void {
      t.live.granted?.(rewards);
    },
    lost(): void {
      // Events may have been missed while the connection was down: forget what they guarded.
      t.versions.forgetAll();
      t.names.clear();
      void t.rankWatcher.resync();
    },
  };
}
