import type { ExecutionResult } from 'graphql';
import { pushStream } from '../service/push-stream.js';

type Result = ExecutionResult | AsyncIterableIterator<ExecutionResult>;

interface Shared {
  subscribers: Set<(r: ExecutionResult) => void>;
  last?: ExecutionResult;
  source?: AsyncIterableIterator<ExecutionResult>;
}

/**
 * One execution per distinct snapshot subscription (topChanged, rankChanged: same query and
 * variables), its results fanned out to every socket that asked: a board change is executed once,
 * not once per subscriber. A subscriber that joins gets the latest result at once, which is the
 * current snapshot these subscriptions promise as their first message. Only for subscriptions
 * whose answer depends on nothing per client (graphql/read-path.ts decides which).
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
        s.last = r;
        for (const push of s.subscribers) push(r);
      }
    } finally {
      // The source ended (its season closed, or an error was sent as a result): so do its subscribers.
      if (shared.get(key) === s) shared.delete(key);
      for (const push of s.subscribers) push(END);
    }
  }

  return {
    /** Subscribes through `start` once per `key`; every caller gets its own stream of the shared results. */
    async subscribe(key: string, start: () => Promise<Result> | Result): Promise<Result> {
      let s = shared.get(key);
      if (!s) {
        s = { subscribers: new Set() };
        shared.set(key, s);
        const result = await start();
        if (!(Symbol.asyncIterator in result)) {
          // An error before any event (unknown season, bad input): nothing to share. Anyone who
          // joined meanwhile ends too, and will get the error when subscribing again.
          end(key, s);
          for (const push of s.subscribers) push(END);
          return result;
        }
        s.source = result;
        void pump(key, s, result);
      }
      const entry = s;
      const stream: AsyncIterableIterator<ExecutionResult> = pushStream<ExecutionResult>(
        (push) => {
          const deliver = (r: ExecutionResult) => (r === END ? void stream.return!() : push(r));
          entry.subscribers.add(deliver);
          if (entry.last) push(entry.last);
          return () => {
            entry.subscribers.delete(deliver);
            if (entry.subscribers.size === 0) end(key, entry);
          };
        },
        { latestOnly: true },
      );
      return stream;
    },

    /** Distinct executions running (metrics, leak checks). */
    size: () => shared.size,
  };
}

/** Marks the end of a shared source for its subscribers' streams. */
const END: ExecutionResult = Object.freeze({});
