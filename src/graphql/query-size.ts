import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * Longest query text, in UTF-16 units: the largest legitimate query (200 friends' ids inline)
 * is under 5,000. Query texts are cache keys (yoga's parse cache, the read path's verdicts and
 * persisted queries), and 1,000 tokens can come with 250 KB of comments or long names: unbounded,
 * each cache could hold that times its entries.
 */
export const MAX_QUERY_LENGTH = 32 * 1024;

/** Refuses (BAD_USER_INPUT) a query text over MAX_QUERY_LENGTH before it is parsed or cached. */
export function queryLengthLimit(): Plugin {
  return {
    onParse: ({ params }) => {
      const length = params.source.toString().length;
      if (length > MAX_QUERY_LENGTH) {
        throw new GraphQLError(`the query is ${length} characters long; at most ${MAX_QUERY_LENGTH}`, {
          extensions: { code: 'BAD_USER_INPUT' },
        });
      }
    },
  };
}
