// Fault matrix 18 (docs/reliability.md#fault-matrix): WebSocket clients connecting, subscribing
// and dropping (half closing cleanly, half cut without a close frame) while results land, then
// subscriptions, sockets and memory back to baseline. CI: FAULTS_WS_CLIENTS (300) over
// FAULTS_WS_S (20 s); the figures are 5,000 over 300 s.
import { execFileSync } from 'node:child_process';
import WebSocket from 'ws';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { testEnv } from '../support/env.js';
import {
  gameServers,
  knob,
  printReport,
  sleep,
  startLadder,
  submitKey,
  type LadderProcess,
} from '../support/faults.js';
import { prng } from '../support/generate.js';
import { request, until, type Entry } from '../support/process.js';
import { createSeason, openServices, type Services } from '../support/services.js';

let ladder: LadderProcess | undefined;
let s: Services;

beforeAll(async () => {
  const env = testEnv({ WS_SOCKETS_PER_ADDRESS: '100000' });
  s = openServices(parseConfig(env));
  // Its inspector: the test collects the API's garbage before reading its heap (collectGarbage).
  ladder = await startLadder({ ...env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --inspect=127.0.0.1:0` });
}, 120_000);
afterAll(async () => {
  await ladder?.kill();
  await s?.close();
});

/** The API's figures: open subscription executions, established sockets on its port, heap and RSS (MiB). */
async function gauges(port: number) {
  const text = (await request(port, '/metrics')).body;
  const sum = (name: string) =>
    text
      .split('\n')
      .filter((l) => l.startsWith(name))
      .reduce((n, l) => n + Number(l.split(' ').at(-1)), 0);
  const sockets = execFileSync('ss', ['-Htn', 'state', 'established', `( sport = :${port} )`])
    .toString()
    .split('\n');
  return {
    subscriptions: sum('ladder_subscriptions{'),
    sockets: sockets.filter(Boolean).length - 1, // less this /metrics request's own
    heapMiB: Math.round(sum('nodejs_heap_size_used_bytes') / 2 ** 20),
    rssMiB: Math.round(sum('process_resident_memory_bytes') / 2 ** 20),
  };
}

/** A full garbage collection in the API process, through its inspector: its heap then holds only what is referenced. */
async function collectGarbage(entry: Entry): Promise<void> {
  const url = /ws:\/\/127\.0\.0\.1:\d+\/[\w-]+/.exec(entry.stderr)?.[0];
  if (!url) throw new Error(`no inspector address on stderr: ${entry.stderr}`);
  const inspector = new WebSocket(url);
  await new Promise((resolve, reject) => {
    inspector.once('open', resolve);
    inspector.once('error', reject);
  });
  inspector.send(JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' }));
  await new Promise((resolve) => inspector.once('message', resolve));
  inspector.close();
}

/** One graphql-ws client by hand: init, subscribe, then a clean close or a cut. */
function client(url: string, query: string, holdMs: number, abrupt: boolean): Promise<boolean> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, 'graphql-transport-ws');
    let subscribed = false;
    ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init' })));
    ws.on('message', (data: Buffer) => {
      const msg = JSON.parse(data.toString()) as { type: string };
      if (msg.type === 'connection_ack') {
        ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query } }));
        subscribed = true;
        setTimeout(() => (abrupt ? ws.terminate() : ws.close(1000)), holdMs);
      }
    });
    ws.on('error', () => {});
    ws.on('close', () => resolve(subscribed));
  });
}

it('18. WebSocket clients connecting, subscribing and dropping: subscriptions, sockets and memory back to baseline', async () => {
  const season = await createSeason(s, { name: 'faults websockets' });
  const port = ladder!.port!;
  const wsUrl = `ws://127.0.0.1:${port}/graphql`;
  const load = gameServers({
    url: () => ladder!.url!,
    apiKey: await submitKey(s),
    season,
    rate: 100,
    players: 500,
    seed: 18,
  });
  await sleep(2);
  await collectGarbage(ladder!.entry);
  const baseline = await gauges(port);
  const clients = knob('WS_CLIENTS', 300);
  const seconds = knob('WS_S', 20);
  const rand = prng(18);
  const queries = [
    `subscription { topChanged(seasonId: ${season.id}, limit: 10) { rank playerId points } }`,
    ...[1, 2, 3].map((p) => `subscription { rankChanged(seasonId: ${season.id}, playerId: "${p}") { rank points } }`),
    `subscription { recordUpdated(seasonId: ${season.id}) { playerId points } }`,
  ];
  const runs: Array<Promise<boolean>> = [];
  let peak = baseline;
  const started = Date.now();
  for (let i = 0; i < clients; i++) {
    // Arrivals spread over the run; each holds its subscription 0.5-5 s.
    await sleep(Math.max(0, (i * seconds * 1000) / clients - (Date.now() - started)) / 1000);
    const query = queries[Math.floor(rand() * queries.length)]!;
    runs.push(client(wsUrl, query, 500 + rand() * 4_500, rand() < 0.5));
    if (i % Math.ceil(clients / 5) === 0) {
      const g = await gauges(port);
      if (g.subscriptions > peak.subscriptions) peak = g;
    }
  }
  const subscribed = (await Promise.all(runs)).filter(Boolean).length;
  const after = await until('subscriptions and sockets back to baseline', 60_000, async () => {
    const g = await gauges(port);
    return g.subscriptions === baseline.subscriptions && g.sockets <= baseline.sockets ? g : undefined;
  });
  // Memory: no growth that stays. V8 collects lazily, so the heap is read right after a full
  // collection, as the baseline was.
  await collectGarbage(ladder!.entry);
  const settled = await gauges(port);
  const report = await load.stop();
  printReport('18 websockets', {
    clients,
    seconds,
    subscribed,
    baseline,
    peak,
    after,
    settled,
    acknowledged: report.results.length,
  });
  expect(subscribed).toBe(clients);
  expect(after.subscriptions).toBe(baseline.subscriptions);
  expect(settled.heapMiB).toBeLessThan(baseline.heapMiB + 64);
}, 600_000);
