import { createHash } from 'node:crypto';
import { badInput } from '../domain/errors.js';
import { boundedMap } from './bounded-map.js';
import { persistedQueryNotFound } from './errors.js';
import type { Params } from './http-params.js';
import { MAX_QUERY_LENGTH } from './query-size.js';

/** The query texts of automatic persisted queries, shared by every API process (redis/persisted-queries.ts). */
export interface PersistedQueries {
  get(sha256Hash: string): Promise<string | undefined>;
  /** Stores a query whose hash was checked, without waiting. */
  set(sha256Hash: string, query: string): void;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * Automatic persisted queries (Apollo's protocol): a request carries a query's SHA-256 instead of
 * its text once the text was registered. This process keeps the texts it used in front of the
 * shared store.
 */
export function createPersistedQueryResolver(shared: PersistedQueries) {
  const local = boundedMap<string>(10_000);
  return {
    /**
     * Fills in `params.query` from its hash, or registers the text sent with its hash. 'yoga': the
     * extension is malformed, yoga answers; an Error: the answer to give (a hash that does not match,
     * an unknown hash); undefined: go on with `params.query`.
     */
    resolve(params: Params): 'yoga' | Error | undefined | Promise<Error | undefined> {
      const pq = params.extensions?.persistedQuery;
      if (!pq) return undefined;
      const hash = pq.sha256Hash;
      if (typeof hash !== 'string') return 'yoga';
      if (typeof params.query === 'string') {
        if (sha256(params.query) !== hash) return badInput(undefined, 'provided sha256Hash does not match the query');
        // A query too long to run is not kept: the map would hold 10,000 of them.
        if (params.query.length <= MAX_QUERY_LENGTH && local.get(hash) === undefined) {
          local.set(hash, params.query);
          shared.set(hash, params.query);
        }
        return undefined;
      }
      // Known here: answered without waiting (the common case, every request after the first).
      params.query = local.get(hash);
      if (params.query !== undefined) return undefined;
      return shared.get(hash).then((query) => {
        if (query === undefined) return persistedQueryNotFound();
        params.query = query;
        local.set(hash, query);
        return undefined;
      });
    },
  };
}
