import { execute, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Context } from './context.js';

/**
 * An operation validated and compiled once (a cacheable read here, a board subscription in
 * board-subscriptions.ts): `run` executes it on a root value (a subscription's event) with a
 * fresh context, without an envelop per request.
 */
export interface CompiledOperation {
  document: DocumentNode;
  run(
    root: unknown,
    context: Context,
    variables: Record<string, unknown> | undefined,
  ): ExecutionResult | Promise<ExecutionResult>;
  stringify(result: ExecutionResult): string;
}

/**
 * Compiled by graphql-jit, or run by graphql-js when `jit` is off; undefined when graphql-jit cannot
 * compile it. `boardState`: the operation selects only BOARD_STATE_FIELDS (readsOnlyBoards), whose
 * Int, ID, String and enum values are already what GraphQL would serialise them to (ranks, sizes
 * and points are integers in the Int range, season.ts; ids and names are strings; enum values are
 * their names), so graphql-jit passes them through: its checked leaf serialisation allocates an
 * error path and locations per leaf of every entry, most of a miss's garbage.
 * DateTime is still serialised. The serving test compares such answers with graphql-js's.
 */
export function compileOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
  jit: boolean,
  boardState = false,
): CompiledOperation | undefined {
  if (!jit) {
    return {
      document,
      run: (rootValue, contextValue, variableValues) =>
        execute({ schema, document, operationName, rootValue, contextValue, variableValues }),
      stringify: (result) => JSON.stringify(result),
    };
  }
  const compiled = compileQuery(schema, document, operationName, { disableLeafSerialization: boardState });
  if (!isCompiledQuery(compiled)) return undefined;
  return {
    document,
    run: (root, context, variables) => compiled.query(root, context, variables),
    stringify: (result) => compiled.stringify(result),
  };
}
