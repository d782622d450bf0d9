// The baselines of bench/api.bench.ts: a plain Node HTTP server answering every request with the
// same bytes ladder answered for top(100), serialised once. What Node can do at best with as many
// processes as ladder runs: `workers` processes share the port through node:cluster.
//   node bench/plain-server.mjs <port> <body file> [workers] [<redis url> <board key> <versions key> <board label>]
// With the Redis arguments it is the floor of the mixed reads instead: a POST whose variables name a
// player (`p`) or players (`ps`) makes the one script call ladder makes for it (src/redis/lua:
// readAround for an around query, with the bench's radius 5; readEntries otherwise; ORDINAL ranks,
// as the bench's board) and is answered with the script's reply as JSON; everything else still
// gets the body file. No GraphQL, no cache, no decoding: what any server that reads ranks from
// Redis per uncached read pays on this machine.
// Prints `ready` once every worker listens; SIGTERM stops the workers, then the primary.
import { Buffer } from 'node:buffer';
import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { URL } from 'node:url';
import { Redis } from 'ioredis';

const [port, file, workersArg = '1', redisUrl, boardKey, versionsKey, label] = process.argv.slice(2);
const workers = Number(workersArg);

if (cluster.isPrimary) {
  let listening = 0;
  let stopping = false;
  cluster.on('listening', () => {
    if (++listening === workers) console.log('ready');
  });
  cluster.on('exit', (worker, code, signal) => {
    // A worker that dies makes the comparison meaningless: stop, and let the bench see the exit.
    if (!stopping) {
      console.error(`plain-server worker ${worker.process.pid} exited (${signal ?? code})`);
      process.exit(1);
    }
    if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
  });
  for (let i = 0; i < workers; i++) cluster.fork();
  process.on('SIGTERM', () => {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
  });
} else {
  const body = readFileSync(file);
  const answer = (res, out) =>
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': out.length }).end(out);
  const redis = redisUrl && new Redis(redisUrl);
  if (redis) {
    const lua = (name) => readFileSync(new URL(`../src/redis/lua/${name}`, import.meta.url), 'utf8');
    redis.defineCommand('readEntries', { numberOfKeys: 2, lua: lua('readEntries-2.lua') });
    redis.defineCommand('readAround', { numberOfKeys: 2, lua: lua('readAround-2.lua') });
  }
  /** The script call a read of these variables needs; undefined for a request that needs none. */
  const redisRead = (text) => {
    if (!redis || !text) return undefined;
    const { query, variables: v } = JSON.parse(text);
    if (!v?.p && !v?.ps) return undefined;
    return query.includes('around(')
      ? redis.readAround(boardKey, versionsKey, v.p, '5', '0', label)
      : redis.readEntries(boardKey, versionsKey, '0', label, ...(v.ps ?? [v.p]));
  };
  http
    .createServer((req, res) => {
      const chunks = [];
      req.on('data', (chunk) => chunks.push(chunk));
      req.on('end', () => {
        const read = redisRead(Buffer.concat(chunks).toString());
        if (!read) return answer(res, body);
        read.then(
          (reply) => answer(res, Buffer.from(JSON.stringify({ data: reply }))),
          (err) => res.writeHead(500).end(String(err)),
        );
      });
    })
    .listen(Number(port), '127.0.0.1');
}
