// The read rate limit: every query counts against its client address's token bucket. Mutations
// are limited per API key (in the submit use case), subscriptions by the socket limits.
import type { Plugin } from 'graphql-yoga';
import type { Context } from './context.js';
import { operationTypeOf } from './operation-type.js';

/** Throws RATE_LIMITED (through Services.rateLimit) before a query runs once its address spent its budget. */
export function useReadRateLimit(): Plugin<Context> {
  return {
    onExecute: ({ args }) => {
      if (operationTypeOf(args.document, args.operationName) === 'query') {
        args.contextValue.services.rateLimit('read', args.contextValue.clientAddress);
      }
    },
  };
}
