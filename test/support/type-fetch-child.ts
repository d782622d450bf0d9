// A process with one pooled PostgreSQL connection (createPostgres, max 1), for
// test/postgres/type-fetch-guard.int.test.ts. GUARD=1 installs the guard of src/main.ts and the
// CLI; REJECT_OTHER=1 then leaves a different rejection unhandled. Prints one JSON line a step.
import { createPostgres } from '../../src/postgres/client.js';
import { surviveTypeFetchFailures } from '../../src/postgres/type-fetch-guard.js';

const say = (line: Record<string, unknown>) => console.log(JSON.stringify(line));
if (process.env.GUARD === '1') surviveTypeFetchFailures((err) => say({ ignored: err.message }));
if (process.env.REJECT_OTHER === '1') void Promise.reject(new Error('an unrelated rejection'));

const { sql, close } = createPostgres(process.env.DATABASE_URL!, 1);
/** A JS array sent as ::text[], as ingest sends them: it needs the array types fetched. */
const names = async () => (await sql<{ names: string[] }[]>`select ${['a', 'b']}::text[] as names`)[0]!.names;

say({ names: await names() });
// The test terminates this connection's backend (an outage as the pool sees it), then sends
// SIGUSR2: the next query opens a new connection, whose type fetch the test terminates in turn.
const alive = setInterval(() => {}, 1_000); // nothing else keeps the process up once the connection is gone
await new Promise((resolve) => process.once('SIGUSR2', resolve));
clearInterval(alive);
for (let attempt = 1; attempt <= 5; attempt++) {
  const result = await names().then(
    (n) => ({ names: n }),
    (err: Error) => ({ failed: err.message }),
  );
  say(result);
  if ('names' in result) break;
}
await close();
say({ done: true });
