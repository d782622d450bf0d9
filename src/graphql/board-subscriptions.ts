import {
  createSourceEventStream,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLError,
  type GraphQLSchema,
} from 'graphql';
import type { Context } from './context.js';
import type { CostArgs } from './list-cost.js';
import { readsOnlyBoards } from './board-state.js';
import { boundedMap } from './bounded-map.js';
import { compileOperation, type CompiledOperation } from './compiled-operation.js';
import { listen, type Listenable } from '../service/push-stream.js';

type Result = ExecutionResult | AsyncIterableIterator<ExecutionResult>;

/**
 * Maps each value of an async iterator; return() and throw() reach the source. A source that can
 * be listened to (push-stream.ts) can be through the map too: values in order, a failed `f` ends
 * the listening with its error (`onError`).
 */
function mapStream<T, U>(
  source: AsyncIterableIterator<T>,
  f: (value: T) => U | Promise<U>,
): AsyncIterableIterator<U> & Partial<Listenable<U>> {
  const ended = (): IteratorResult<U> => ({ value: undefined, done: true });
  const listenable = (source as Partial<Listenable<T>>)[listen]?.bind(source);
  return {
    ...(listenable && {
      [listen]: (onValue: (value: U) => void, onError?: (err: unknown) => void) => {
        // Mapped values that come as promises wait their turn: order is the source's.
        let tail: Promise<void> | undefined;
        const fail = (err: unknown) => onError?.(err);
        return listenable((value) => {
          try {
            const mapped = f(value);
            if (!tail && !(mapped instanceof Promise)) onValue(mapped);
            else tail = (tail ?? Promise.resolve()).then(() => mapped).then(onValue, fail);
          } catch (err) {
            fail(err);
          }
        });
      },
    }),
    async next() {
      const r = await source.next();
      return r.done ? ended() : { value: await f(r.value), done: false };
    },
    return: async () => {
      await source.return?.();
      return ended();
    },
    throw: async (err?: unknown) => {
      await source.throw?.(err);
      return ended();
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/**
 * Subscriptions that read only board state (topChanged, rankChanged; board-state.ts decides) run
 * without an envelop per subscription: graphql-js makes the source stream from the field's
 * subscribe resolver, and each event runs the compiled selection (graphql-jit). That keeps an idle
 * subscription small (the envelop's context, graphql-js's execution context and its iterator
 * layers cost more than the rest together) and a push cheap. Anything else, and any subscription
 * whose start fails, goes through the envelop, so errors look the same either way.
 */
export function createBoardSubscriptions(deps: {
  schema: GraphQLSchema;
  jit: boolean;
  /** Is this operation over the list-cost limit with these variables (list-cost.ts)? The envelop then refuses it. */
  overCost(args: CostArgs): boolean;
  /** The one error translation (errors.ts maskError, counted): an event's errors pass it as the envelop's would. */
  translate(error: unknown, message: string): GraphQLError;
}) {
  // Query texts come from clients: a bounded number is kept.
  const prepared = boundedMap<CompiledOperation | false>(1_000);

  return {
    /**
     * The prepared subscription, or false when the envelop must run it. `check` parses and
     * validates the query with the envelop (its limits included): asked once per query text.
     */
    prepare(
      query: string,
      operationName: string | undefined,
      check: () => DocumentNode | undefined,
    ): CompiledOperation | false {
      const key = `${query}\n${operationName ?? ''}`;
      let p = prepared.get(key);
      if (p !== undefined) return p;
      p = false;
      try {
        const document = check();
        if (document && readsOnlyBoards(deps.schema, document, 'subscription')) {
          p = compileOperation(deps.schema, document, operationName, deps.jit, true) ?? false;
        }
      } catch {
        p = false;
      }
      prepared.set(key, p);
      return p;
    },

    /** Starts a prepared subscription; `fallback` runs it through the envelop when its start fails. */
    async subscribe(
      p: CompiledOperation,
      args: ExecutionArgs,
      fallback: () => Promise<Result> | Result,
    ): Promise<Result> {
      if (deps.overCost({ ...args, document: p.document })) return fallback();
      const context = args.contextValue as Context;
      const source = await createSourceEventStream({ ...args, document: p.document });
      if (!(Symbol.asyncIterator in source)) return fallback();
      const translated = (result: ExecutionResult): ExecutionResult =>
        result.errors?.length
          ? { ...result, errors: result.errors.map((e) => deps.translate(e, 'Unexpected error.')) }
          : result;
      return mapStream(source as AsyncIterableIterator<unknown>, (event) => {
        // graphql-jit answers without a promise when no resolver returned one: no promise per push.
        const result = p.run(event, context, args.variableValues ?? undefined);
        return result instanceof Promise ? result.then(translated) : translated(result);
      });
    },
  };
}
