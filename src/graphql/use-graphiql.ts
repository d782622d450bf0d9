// GraphiQL at the GraphQL endpoint for browsers (graphiql.ts renders and serves the page), with
// full loads rate limited per client address: each costs megabytes of bandwidth.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRateLimiter } from '../service/rate-limiter.js';
import { createGraphiQLPage, wantsGraphiQL } from './graphiql.js';

/** Full loads an address may make at once, before `loadsPerMinute` paces it. */
export const GRAPHIQL_LOAD_BURST = 5;

/**
 * Answers a browser asking for `endpoint` with GraphiQL and returns true; false for any other
 * request. Full loads past `loadsPerMinute` per address (burst 5) get 429; revalidations are free.
 */
export function useGraphiQL(opts: { endpoint: string; loadsPerMinute: number; now?: () => number }) {
  const loads = createRateLimiter({
    ratePerSec: opts.loadsPerMinute / 60,
    burst: GRAPHIQL_LOAD_BURST,
    now: opts.now,
  });
  const page = createGraphiQLPage({
    title: 'ladder',
    defaultQuery: '{ seasons { id name status } }',
    take: (address) => loads.take(address),
  });
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    if (!wantsGraphiQL(req, opts.endpoint)) return false;
    await page.handle(req, res);
    return true;
  };
}
