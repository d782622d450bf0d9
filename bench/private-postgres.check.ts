// Checks bench/private-postgres.ts for real: `npx tsx bench/private-postgres.check.ts`. Loads a table
// larger than the 512 MiB limit and shows that the server's memory (page cache included) stays under it.
import { existsSync, readFileSync } from 'node:fs';
import postgres from 'postgres';
import { memoryCgroupUsage, startPrivatePostgres } from './private-postgres.js';

const MiB = 1024 * 1024;
const mib = (n: number): string => `${(n / MiB).toFixed(0)} MiB`;
const check = (ok: boolean, what: string): void => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) process.exitCode = 1;
};

let t = Date.now();
const pg = await startPrivatePostgres({ memoryLimitBytes: 512 * MiB, sharedBuffers: '64MB' });
console.log(`started ${pg.url} in ${Date.now() - t} ms; data ${pg.dataDir}; cgroup ${pg.cgroupDir}`);
const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
try {
  const { shared_buffers } = (await sql`show shared_buffers`)[0]!;
  console.log(`shared_buffers = ${shared_buffers}`);
  const { pid } = (await sql`select pg_backend_pid() as pid`)[0]!;
  check(readFileSync(`/proc/${pid}/cgroup`, 'utf8').includes(`/ladder-bench-${pg.port}\n`), 'backend is in the cgroup');

  // Sample the charge while ~0.6 GB of heap and as much WAL go through the page cache.
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, memoryCgroupUsage(pg)?.usageBytes ?? 0)), 100);
  t = Date.now();
  await sql`create table filler (id bigint primary key, pad text not null)`;
  await sql`insert into filler select g, repeat(md5(g::text), 8) from generate_series(1, 2000000) g`;
  const { size } = (await sql`select pg_total_relation_size('filler')::bigint as size`)[0]!;
  console.log(`inserted 2M rows in ${Date.now() - t} ms; table + index ${mib(Number(size))}`);
  const { n } = (await sql`select count(*)::int as n from filler where pad like '%zz%'`)[0]!; // a full scan
  clearInterval(sampler);

  const usage = memoryCgroupUsage(pg)!;
  const stat = (f: string): number => Number(readFileSync(`${pg.cgroupDir}/${f}`, 'utf8').trim());
  const cache = Number(/^cache (\d+)$/m.exec(readFileSync(`${pg.cgroupDir}/memory.stat`, 'utf8'))?.[1]);
  console.log(`scanned (${n} matches); now usage ${mib(usage.usageBytes)} of limit ${mib(usage.limitBytes)}`);
  const max = stat('memory.max_usage_in_bytes');
  console.log(`peak sampled ${mib(peak)}, memory.max_usage_in_bytes ${mib(max)}, page cache now ${mib(cache)}`);
  check(usage.limitBytes === 512 * MiB, 'limit is 512 MiB');
  check(Number(size) > usage.limitBytes, 'the data is larger than the limit');
  check(max <= usage.limitBytes && peak <= usage.limitBytes, 'usage stayed ≤ the limit');
  // memory.failcnt stays 0 on this kernel (6.18) even at the limit: the peak shows the limit bites.
  check(max > 0.97 * usage.limitBytes, 'usage reached the limit (the kernel evicted page cache to stay under it)');
} finally {
  await sql.end();
  t = Date.now();
  await pg.stop();
  console.log(`stopped in ${Date.now() - t} ms`);
}
check(!existsSync(pg.cgroupDir), 'cgroup dir removed');
check(!existsSync(pg.dataDir), 'data dir removed');
check(memoryCgroupUsage(pg) === null, 'memoryCgroupUsage is null after stop');
