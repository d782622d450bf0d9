// A small HTTP load generator, run as its own process so it never shares an event loop with the
// server it measures. Keep-alive connections, a fixed concurrency, a fixed duration.
//   node bench/load.mjs <url> <body|-> <connections> <seconds> [maxPlayer]
// In the body, {{player}} becomes a random player id in 1..maxPlayer and {{players}} a JSON
// list of 50 of them. Prints one JSON line: requests/s and latency percentiles.
import http from 'node:http';

const [url, bodyTemplate, connections = '50', seconds = '5', maxPlayer = '1'] = process.argv.slice(2);
const target = new URL(url);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(connections) });
const randomPlayer = () => String(1 + Math.floor(Math.random() * Number(maxPlayer)));
const bodyFor = () => bodyTemplate === '-' ? undefined : bodyTemplate
  .replaceAll('{{player}}', randomPlayer)
  .replaceAll('{{players}}', () => JSON.stringify(Array.from({ length: 50 }, randomPlayer)).replaceAll('"', '\\"'));

const latencies = [];
let ok = 0;
let failed = 0;
function request() {
  return new Promise((resolve) => {
    const body = bodyFor();
    const started = performance.now();
    const req = http.request({
      host: target.hostname, port: target.port, path: target.pathname, agent, method: body ? 'POST' : 'GET',
      headers: body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {},
    }, (res) => {
      res.resume();
      res.on('end', () => {
        latencies.push(performance.now() - started);
        if (res.statusCode === 200) ok++; else failed++;
        resolve();
      });
    });
    req.on('error', () => { failed++; resolve(); });
    req.end(body);
  });
}

const until = Date.now() + Number(seconds) * 1000;
await Promise.all(Array.from({ length: Number(connections) }, async () => {
  while (Date.now() < until) await request();
}));
latencies.sort((a, b) => a - b);
const pct = (q) => Number((latencies[Math.floor(q * (latencies.length - 1))] ?? 0).toFixed(2));
console.log(JSON.stringify({ rps: Math.round(ok / Number(seconds)), ok, failed, p50: pct(0.5), p90: pct(0.9), p99: pct(0.99) }));
agent.destroy();
