// Issue 38: every connection made while ladder starts gets an answer. From the moment its port
// accepts until it is ready, and across the moment the API takes over, connections of every kind
// (GET /ready, a small GraphQL POST, an 8 MB chunked POST sent without waiting, a WebSocket
// upgrade) are answered within 2 s: 503 while starting (a WebSocket: closed with 1013), the API's
// answer after; none is refused, reset or left unanswered once the port is open, and no process
// keeps a socket after its client has gone. Before the fix, in 4 of 11 cluster starts one
// connection in 40-120 was never answered (held by the primary), others were reset or refused
// while the workers handed the port over, and large bodies met EPIPE instead of their 503.
// Each test starts ladder a few times, and again (up to a cap) until every kind of connection has
// met both the "starting" answer and the API's: a quick start on a quiet machine may leave a kind
// no connection in its short starting window.
import { afterAll, expect, it } from 'vitest';
import { testEnv } from '../support/env.js';
import {
  connectAndAsk,
  freePort,
  request,
  serverSockets,
  spawnEntry,
  until,
  type Asked,
  type Entry,
  type RequestKind,
} from '../support/process.js';

const started: Entry[] = [];
afterAll(() => {
  for (const e of started) e.kill();
});

const KINDS: RequestKind[] = ['ready', 'query', 'ready', 'ws', 'query', 'large'];
/** A new connection this often, from the process's spawn until both its API processes answer. */
const EVERY_MS = 25;

/** What each kind may be answered while starting, and once ready. */
const ANSWERS: Record<RequestKind, string[]> = {
  ready: ['503', '200'],
  query: ['503', '200'],
  ws: ['1013', '101'], // while starting: accepted and closed with 1013 Try Again Later
  large: ['503', '413'],
};

/**
 * Starts ladder (`workers` API processes) and connects every EVERY_MS from its spawn until each
 * API process has answered /ready 200 and a little longer: every attempt, the refused ones before
 * the port first accepts included. Then checks no socket is left open, and stops it.
 */
async function startUnderConnections(workers: number): Promise<Asked[]> {
  const port = await freePort();
  const e = spawnEntry(
    'src/main.ts',
    testEnv({ API_WORKERS: String(workers), LADDER_ROLES: 'api', PORT: String(port), HOST: '127.0.0.1' }),
  );
  started.push(e);
  const t0 = Date.now();
  const asked: Promise<Asked>[] = [];
  const readyPids = new Set<number>();
  let readySince = 0;
  for (let i = 0; Date.now() - t0 < 60_000 && e.child.exitCode === null; i++) {
    const kind = KINDS[i % KINDS.length]!;
    asked.push(connectAndAsk(port, kind, t0));
    // In a cluster /ready names the worker that answered; one process has no pid in it.
    if (kind === 'ready' && i % 4 === 0) {
      void request(port, '/ready')
        .then((res) => res.status === 200 && readyPids.add((JSON.parse(res.body) as { pid?: number }).pid ?? 0))
        .catch(() => {});
    }
    if (readyPids.size === workers && !readySince) readySince = Date.now();
    if (readySince && Date.now() - readySince > 500) break;
    await new Promise((r) => setTimeout(r, EVERY_MS));
  }
  const all = await Promise.all(asked);
  expect(readyPids.size, `${e.stdout.slice(-2_000)}\n${e.stderr}`).toBe(workers);
  // Every client has gone: nothing keeps a socket of the port open past the lingering close.
  await until('the sockets of gone clients to be closed', 10_000, async () =>
    (await serverSockets(port)) === 0 ? true : undefined,
  );
  e.child.kill('SIGTERM');
  expect((await e.exited).code).toBe(0);
  return all;
}

/** Attempts from the first one the port accepted on, with what each got. */
function fromFirstAccept(all: Asked[]): Asked[] {
  const first = all.findIndex((a) => a.outcome !== 'ECONNREFUSED');
  expect(first, 'the port never accepted').toBeGreaterThanOrEqual(0);
  return all.slice(first);
}

/** Every connection got its answer within 2 s: 503 while starting, the API's answer after. */
function expectAllAnswered(asked: Asked[]): void {
  const bad = asked.filter((a) => !ANSWERS[a.kind].includes(a.outcome) || a.ms >= 2_000);
  expect(bad, `${bad.length} of ${asked.length} connections without a timely answer`).toEqual([]);
}

/** The kinds not yet seen on both sides of the hand-over (starting, then ready) in `asked`. */
function oneSided(asked: Asked[]): RequestKind[] {
  return [...new Set(KINDS)].filter((kind) => {
    const seen = new Set(asked.filter((a) => a.kind === kind).map((a) => a.outcome));
    return ANSWERS[kind].some((answer) => !seen.has(answer));
  });
}

/**
 * Starts ladder `minStarts` times, each connection answered in time; then again while some kind
 * has not yet been seen on both sides of the hand-over, up to `maxStarts`: a start quicker than the
 * gap between two connections of a kind shows no 503 of it, which proves nothing either way, so it
 * is not counted as a failure but made up for by another start. In the end every kind must have
 * met both the "starting" answer and the API's, as before.
 */
async function startUntilBothSides(workers: number, minStarts: number, maxStarts: number): Promise<string[]> {
  const all: Asked[] = [];
  const rounds: string[] = [];
  while (rounds.length < minStarts || (rounds.length < maxStarts && oneSided(all).length > 0)) {
    const asked = fromFirstAccept(await startUnderConnections(workers));
    expectAllAnswered(asked);
    all.push(...asked);
    rounds.push(`${asked.length} connections, slowest answer ${Math.max(...asked.map((a) => a.ms))} ms`);
  }
  expect(oneSided(all), `kinds never answered "starting" in ${rounds.length} starts`).toEqual([]);
  return rounds;
}

it('answers every connection while a cluster (API_WORKERS=2) starts, start after start', async () => {
  const rounds = await startUntilBothSides(2, 4, 12);
  console.log(`cluster starts: ${rounds.join('; ')}`);
}, 600_000);

it('answers every connection while one process starts', async () => {
  const rounds = await startUntilBothSides(1, 2, 8);
  console.log(`single-process starts: ${rounds.join('; ')}`);
}, 300_000);
