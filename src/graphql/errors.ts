import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { isDomainError } from '../domain/errors.js';

/**
 * The one translation of errors at the GraphQL boundary: a DomainError keeps its message and
 * becomes extensions.code (+ extensions.field); anything unexpected is masked.
 */
export function maskError(error: unknown, message: string): GraphQLError {
  const original = error instanceof GraphQLError ? error.originalError : error;
  if (isDomainError(original)) {
    const base = error instanceof GraphQLError ? error : undefined;
    return new GraphQLError(original.message, {
      nodes: base?.nodes,
      path: base?.path,
      extensions: { code: original.code, ...(original.field ? { field: original.field } : {}) },
    });
  }
  if (error instanceof GraphQLError && (!error.originalError || error.originalError instanceof GraphQLError)) {
    return withDefaultCode(error);
  }
  return new GraphQLError(message, { extensions: { code: 'INTERNAL_SERVER_ERROR' } });
}

/**
 * Apollo's automatic persisted queries: the hash is not (or no longer) known here; the client
 * sends the query with it. A protocol error, not a domain one: its code is the protocol's.
 */
export function persistedQueryNotFound(): GraphQLError {
  return new GraphQLError('PersistedQueryNotFound', { extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } });
}

/** The body of an answer made of errors only, each already through maskError. */
export function errorsBody(errors: readonly GraphQLError[]): string {
  return JSON.stringify({ errors });
}

/** A GraphQL-level error (syntax, validation, variable types) is bad input unless it says otherwise. */
function withDefaultCode(error: GraphQLError): GraphQLError {
  // A resolver's error (originalError set) is maskError's business, which runs after this.
  if (error.originalError && !(error.originalError instanceof GraphQLError)) return error;
  if (
    error.extensions?.code &&
    error.extensions.code !== 'GRAPHQL_VALIDATION_FAILED' &&
    error.extensions.code !== 'GRAPHQL_PARSE_FAILED'
  ) {
    return error;
  }
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: { ...error.extensions, code: 'BAD_USER_INPUT' },
  });
}

/**
 * Gives parse, validation and variable-coercion errors the BAD_USER_INPUT code. A document that
 * does not parse is a request error: 400 under application/graphql-response+json, 200 under
 * application/json (yoga's `spec` status, as its own parse gives; the token limit's parser threw
 * a bare syntax error without it).
 */
export function useErrorCodes(): Plugin {
  return {
    onParse:
      () =>
      ({ result, replaceParseResult }) => {
        if (!(result instanceof GraphQLError) || result.extensions?.http) return;
        const coded = withDefaultCode(result);
        replaceParseResult(
          new GraphQLError(coded.message, {
            source: coded.source,
            positions: coded.positions,
            extensions: { ...coded.extensions, http: { status: 400, spec: true } },
          }),
        );
      },
    onValidate:
      () =>
      ({ result, setResult }) => {
        if (result.length > 0) setResult(result.map((e) => (e instanceof GraphQLError ? withDefaultCode(e) : e)));
      },
    onExecute: () => ({
      onExecuteDone: ({ result, setResult }) => {
        // Variable coercion fails before any resolver runs: a single result with errors.
        if (Symbol.asyncIterator in result || !result.errors?.length) return;
        setResult({
          ...result,
          errors: result.errors.map((e) => (e instanceof GraphQLError ? withDefaultCode(e) : e)),
        });
      },
    }),
  };
}
