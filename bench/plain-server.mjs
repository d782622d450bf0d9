// The baseline of bench/api.bench.ts: a plain Node HTTP server answering every request with the
// same bytes ladder answered for top(100), serialised once. What Node can do at best with as many
// processes as ladder runs: `workers` processes share the port through node:cluster.
//   node bench/plain-server.mjs <port> <body file> [workers]
// Prints `ready` once every worker listens; SIGTERM stops the workers, then the primary.
import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import http from 'node:http';

const [port, file, workersArg = '1'] = process.argv.slice(2);
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
  http
    .createServer((req, res) => {
      req.resume();
      req.on('end', () =>
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body),
      );
    })
    .listen(Number(port), '127.0.0.1');
}
