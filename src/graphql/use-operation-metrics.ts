// Execution time per operation type (ladder_graphql_duration_seconds).
import type { Plugin } from 'graphql-yoga';
import { operationTypeOf } from './operation-type.js';

/** Tells `observe` how long each execution took, by operation type ('unknown' when none matches). */
export function useOperationMetrics(observe: (operationType: string, seconds: number) => void): Plugin {
  return {
    onExecute: ({ args }) => {
      const started = performance.now();
      const type = operationTypeOf(args.document, args.operationName) ?? 'unknown';
      return {
        onExecuteDone: () => observe(type, (performance.now() - started) / 1000),
      };
    },
  };
}
