// The baseline of bench/api.bench.ts: a plain Node HTTP server answering every request with the
// same bytes ladder answered for top(100), serialised once. What one process can do at best.
//   node bench/plain-server.mjs <port> <body file>
import { readFileSync } from 'node:fs';
import http from 'node:http';

const [port, file] = process.argv.slice(2);
const body = readFileSync(file);
http.createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body));
}).listen(Number(port), '127.0.0.1', () => console.log('ready'));
