// postgres.js 3.4.9 runs a fixed `pg_type` query as the first statement of every new connection
// (fetch_types, which `::text[]` parameters need) and drops that query's promise
// (connection.js, ReadyForQuery: `return fetchArrayTypes()`). When the backend is terminated or
// the query cancelled meanwhile, the rejection reaches nobody: Node 20 exits on it, so a worker
// would die during a PostgreSQL outage. Open upstream: porsager/postgres#1192, #1205, #1223.
// No option or wrapper reaches that promise; the same error also fails the connection's first
// query, which its caller handles. So each process ignores exactly that rejection.

/** postgres.js's array-type query, whitespace collapsed (connection.js, fetchArrayTypes). */
const TYPE_FETCH_QUERY =
  "select b.oid, b.typarray from pg_catalog.pg_type a left join pg_catalog.pg_type b on b.oid = a.typelem where a.typcategory = 'A' group by b.oid, b.typarray order by b.oid";

/** Whether `reason` is the failure of postgres.js's own type fetch (the error names the query it failed). */
export function isTypeFetchFailure(reason: unknown): boolean {
  const query = (reason as { query?: unknown } | null)?.query;
  return typeof query === 'string' && query.replace(/\s+/g, ' ').trim() === TYPE_FETCH_QUERY;
}

export const TYPE_FETCH_WARNING = 'postgres.js type fetch failed on a new connection (porsager/postgres#1192): ignored';

/**
 * Passes the unhandled rejection of a failed type fetch to `warn` and goes on; any other
 * unhandled rejection is thrown as Node does without a handler (printed, exit code 1). Once per
 * process, before anything connects.
 */
export function surviveTypeFetchFailures(warn: (err: Error) => void): void {
  process.on('unhandledRejection', (reason) => {
    if (!isTypeFetchFailure(reason)) throw reason;
    warn(reason as Error);
  });
}
