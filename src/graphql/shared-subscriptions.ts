import type { ExecutionResult } from 'graphql';
import { pushStream } from '../service/push-stream.js';

type Result = ExecutionResult | AsyncIterableIterator<ExecutionResult>;

interface Subscriber {
  /** Writes one result, serialised, to this subscriber's socket. */
  send(json: string): void;
  /** Ends this subscriber's stream (graphql-ws then sends Complete). */
  stop(): void;
}

interface Shared {
  subscribers: Set<Subscriber>;
  /** The latest result, serialised. */
  last?: string;
  source?: AsyncIterableIterator<ExecutionResult>;
}

/**
 * One execution per distinct snapshot subscription (topChanged, rankChanged: same query and
 * variables), its results serialised once and written to every socket that asked: a board change
 * is executed and stringified once, not once per subscriber. A subscriber that joins gets the
 * latest result at once, which is the current snapshot these subscriptions promise as their first
 * message. Only for subscriptions whose answer depends on nothing per client (graphql/read-path.ts
 * decides which).
 *
 * The results bypass graphql-ws's per-socket path (an async iterator per subscription, a
 * JSON.stringify of the whole message and an awaited write per push): `send` writes the message
 * itself. graphql-ws still owns the subscription's life: the stream it gets yields nothing and
 * ends when the source does (then graphql-ws sends Complete) or when the client completes it.
 */
export function createSharedSubscriptions() {
  const shared = new Map<string, Shared>();

  function end(key: string, s: Shared): void {
    if (shared.get(key) === s) shared.delete(key);
    void s.source?.return?.();
  }

  async function pump(key: string, s: Shared, source: AsyncIterableIterator<ExecutionResult>): Promise<void> {
    try {
      for await (const r of source) {
        const json = JSON.stringify(r);
        s.last = json;
        for (const sub of s.subscribers) sub.send(json);
      }
    } finally {
      // The source ended (its season closed, or an error was sent as a result): so do its subscribers.
      if (shared.get(key) === s) shared.delete(key);
      for (const sub of s.subscribers) sub.stop();
    }
  }

  return {
    /**
     * Subscribes through `start` once per `key`; every caller's `send` gets the shared results.
     * Returns the stream graphql-ws runs the subscription by (it yields nothing), or the error
     * result of a start that failed.
     */
    async subscribe(key: string, start: () => Promise<Result> | Result, send: (json: string) => void): Promise<Result> {
      let s = shared.get(key);
      if (!s) {
        s = { subscribers: new Set() };
        shared.set(key, s);
        const result = await start();
        if (!(Symbol.asyncIterator in result)) {
          // An error before any event (unknown season, bad input): nothing to share. Anyone who
          // joined meanwhile ends too, and will get the error when subscribing again.
          end(key, s);
          for (const sub of s.subscribers) sub.stop();
          return result;
        }
        s.source = result;
        void pump(key, s, result);
      }
      const entry = s;
      const stream: AsyncIterableIterator<ExecutionResult> = pushStream<ExecutionResult>(() => {
        const sub: Subscriber = { send, stop: () => void stream.return!() };
        entry.subscribers.add(sub);
        if (entry.last !== undefined) send(entry.last);
        return () => {
          entry.subscribers.delete(sub);
          if (entry.subscribers.size === 0) end(key, entry);
        };
      });
      return stream;
    },

    /** Distinct executions running (metrics, leak checks). */
    size: () => shared.size,
  };
}
