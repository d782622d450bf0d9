import type { ExecutionResult } from 'graphql';
import { listen, type Listenable } from '../service/push-stream.js';

type Result = ExecutionResult | AsyncIterableIterator<ExecutionResult>;

const ended: IteratorResult<ExecutionResult> = { value: undefined, done: true };

/**
 * One socket's subscription to a shared execution, and the stream graphql-ws runs it by: the
 * stream yields nothing (`send` writes the results) and ends when graphql-ws returns it (the
 * client completed, the socket closed) or when `stop` is called (the source ended). A class, not
 * a pushStream: thousands are idle at once, and its methods are shared (memory per idle socket,
 * docs/benchmarks.md).
 */
class Subscriber implements AsyncIterableIterator<ExecutionResult> {
  private waiting?: (r: IteratorResult<ExecutionResult>) => void;
  private done = false;

  constructor(
    /** Writes one result, serialised, to this subscriber's socket. */
    readonly send: (json: string) => void,
    private readonly onEnd: (sub: Subscriber) => void,
  ) {}

  next(): Promise<IteratorResult<ExecutionResult>> {
    return this.done ? Promise.resolve(ended) : new Promise((resolve) => (this.waiting = resolve));
  }

  return(): Promise<IteratorResult<ExecutionResult>> {
    this.stop();
    return Promise.resolve(ended);
  }

  async throw(err?: unknown): Promise<IteratorResult<ExecutionResult>> {
    this.stop();
    throw err;
  }

  /** Ends this subscriber's stream (graphql-ws then sends Complete); runs its cleanup once. */
  stop(): void {
    if (this.done) return;
    this.done = true;
    this.onEnd(this);
    this.waiting?.(ended);
    this.waiting = undefined;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

interface Shared {
  subscribers: Set<Subscriber>;
  /** The latest result, serialised. */
  last?: string;
  source?: AsyncIterableIterator<ExecutionResult>;
  /** Ends a pump that listens to its source (see pump). */
  ended?: () => void;
}

/**
 * One execution per distinct snapshot subscription (topChanged, rankChanged: same query and
 * variables), its results serialised once and written to every socket that asked: a board change
 * is executed and stringified once, not once per subscriber. A subscriber that joins gets the
 * latest result at once, which is the current snapshot these subscriptions promise as their first
 * message. Only for subscriptions whose answer depends on nothing per client (graphql/board-state.ts
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
    s.ended?.();
  }

  async function pump(key: string, s: Shared, source: AsyncIterableIterator<ExecutionResult>): Promise<void> {
    const write = (r: ExecutionResult) => {
      const json = JSON.stringify(r);
      s.last = json;
      for (const sub of s.subscribers) sub.send(json);
    };
    try {
      const listenable = (source as Partial<Listenable<ExecutionResult>>)[listen];
      if (listenable) {
        // Called back on each push: between pushes nothing waits (thousands of streams would each
        // keep a pending next() and its promises alive through young-generation GCs). Ends as the
        // loop below does: the source returned (no subscriber left) or a result failed.
        await new Promise<void>((resolve, reject) => {
          s.ended = resolve;
          const onValue = (r: ExecutionResult) => {
            try {
              write(r);
            } catch (err) {
              reject(err); // not into the source's caller (the rank watcher, the top cache)
            }
          };
          listenable.call(source, onValue, reject).catch(reject);
        });
      } else {
        for await (const r of source) write(r);
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
      const sub = new Subscriber(send, (x) => {
        entry.subscribers.delete(x);
        if (entry.subscribers.size === 0) end(key, entry);
      });
      entry.subscribers.add(sub);
      if (entry.last !== undefined) send(entry.last);
      return sub;
    },

    /** Distinct executions running (metrics, leak checks). */
    size: () => shared.size,
  };
}
