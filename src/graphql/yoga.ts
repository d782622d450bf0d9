// The envelop every GraphQL operation runs through, HTTP and WebSocket alike: the limits on a
// query's shape and cost, error codes and the one translation, the read rate limit, graphql-jit.
import type { IncomingMessage } from 'node:http';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesPlugin } from '@escape.tech/graphql-armor-max-directives';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { useGraphQlJit } from '@envelop/graphql-jit';
import type { GraphQLError } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import type { Logger } from '../logger.js';
import type { Context, RequestInfo } from './context.js';
import { useErrorCodes } from './errors.js';
import { operationCount, operationTypeOf } from './operation-type.js';
import { queryLengthLimit } from './query-size.js';
import type { RequestReads } from './response-cache.js';
import { schema } from './schema.js';
import { useReadRateLimit } from './use-read-rate-limit.js';

/** yoga on ladder's schema and envelop; `translate` is the one error translation (errors.ts). */
export function createLadderYoga(deps: {
  log: Logger;
  /** Logs an error yoga masked (error-report.ts: clients' mistakes sampled at info). */
  logError(error: unknown): void;
  translate(error: unknown, message: string): GraphQLError;
  context(req: RequestInfo, reads?: RequestReads): Context;
  /** The list-cost limit (list-cost.ts), also asked by the paths that run prepared operations. */
  listCost: Plugin;
  jit: boolean;
  plugins: Plugin[];
}) {
  return createYoga<{ req: IncomingMessage; reads?: RequestReads }, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    healthCheckEndpoint: '/health',
    landingPage: false,
    // CORS is set in handle() (cors.ts) for every route.
    cors: false,
    batching: false,
    // GraphiQL is served by graphiql.ts (compressed once, cacheable, rate limited), or not at all.
    graphiql: false,
    maskedErrors: { maskError: deps.translate },
    logging: {
      debug: (...a) => deps.log.debug(a.map(String).join(' ')),
      info: (...a) => deps.log.info(a.map(String).join(' ')),
      warn: (...a) => deps.log.warn(a.map(String).join(' ')),
      // yoga reports here every error it masked: clients' mistakes included (error-report.ts).
      error: (...a) => (a.length === 1 ? deps.logError(a[0]) : deps.log.error(a.map(String).join(' '))),
    },
    context: ({ req, reads }) => deps.context(req, reads),
    plugins: [
      queryLengthLimit(),
      maxDepthPlugin({ n: 8 }),
      maxAliasesPlugin({ n: 15 }),
      maxTokensPlugin({ n: 1_000 }),
      maxDirectivesPlugin({ n: 10 }),
      // The one cost model (graphql-armor's static cost multiplied by a literal `first` and ignored
      // `limit` and variables: it refused `friendsPage(first: 1000)` that this one allows).
      deps.listCost,
      useErrorCodes(),
      useReadRateLimit(),
      // Queries run as compiled functions (graphql-jit), cheaper per request than the interpreter;
      // a serving test compares its answers with graphql-js's. Mutations and subscriptions are rare
      // and stay on graphql-js. So do documents of several operations: the plugin keeps one compiled
      // query per document, whatever the operationName, and ran the first one compiled for every
      // other (GraphiQL sends its whole editor with the name of the one to run).
      ...(!deps.jit
        ? []
        : [
            useGraphQlJit(
              {},
              {
                enableIf: (args) =>
                  operationTypeOf(args.document, args.operationName) === 'query' && operationCount(args.document) === 1,
              },
            ),
          ]),
      ...deps.plugins,
    ],
  });
}
