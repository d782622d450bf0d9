// The WebSocket side of bench/live.bench.ts, in a process of its own so the clients' event loop is
// neither the API's nor the producer's. Started with an IPC channel; the parent sends one `open`
// message, then `collect` as often as it likes, then `close`.
//
// One socket per subscription (bench/live-socket.ts). What is recorded is only what latency matching
// needs, with two times (Date.now(), the producer's clock for CreateTime): when the message was read
// off its socket, and when it had been parsed and the bookkeeping below had handled it:
//   rankChanged: the first push carrying a new `points` for the watched player (BEST scoring: a
//                player's points only rise when their own result lands), keyed "player:points";
//   topChanged:  every (player, points) pair that was not in this client's previous payload.
// The first payload of every subscription is the snapshot and is never recorded.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { subscribe as openSubscription, type Subscription } from './live-socket.js';

interface OpenRequest {
  type: 'open';
  url: string;
  seasonId: number;
  /** One rankChanged subscription per player. */
  rankPlayers: string[];
  topSubscriptions: number;
  topLimit: number;
  /** Subscriptions opened at once; the next batch starts when every one got its snapshot. */
  batch: number;
}
export type ToClients = OpenRequest | { type: 'count' } | { type: 'collect' } | { type: 'close' };

export interface Counters {
  /** Subscriptions that received their first payload. */
  subscribed: number;
  failed: number;
  /** Sockets closed by the server or an error after subscribing. */
  closed: number;
  rankPushes: number;
  topPushes: number;
  errors: string[];
}
export type FromClients =
  | { type: 'progress'; subscribed: number; failed: number; total: number }
  | { type: 'opened'; ms: number; counters: Counters }
  | { type: 'counted'; counters: Counters }
  | {
      type: 'collected';
      counters: Counters;
      /** key "player:points" -> [read, handled] ms (first receipt). */
      rank: Array<[string, Receipt]>;
      /** key "player:points" -> [read, handled] ms on each client that saw it appear. */
      top: Array<[string, Receipt[]]>;
      loopDelayP99Ms: number;
      loopDelayMaxMs: number;
    };

/** When a message was read off its socket, and when it had been handled (ms, Date.now()). */
export type Receipt = [read: number, handled: number];

interface EntryPayload {
  rank: number;
  playerId: string;
  points: number;
}

const send = (m: FromClients) => process.send!(m);
const counters: Counters = { subscribed: 0, failed: 0, closed: 0, rankPushes: 0, topPushes: 0, errors: [] };
const subscriptions: Subscription[] = [];
let rank = new Map<string, Receipt>();
let top = new Map<string, Receipt[]>();
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();

function note(err: unknown) {
  if (counters.errors.length >= 10) return;
  const e = err as { code?: unknown; reason?: unknown } | null;
  counters.errors.push(
    err instanceof Error
      ? err.message
      : e && typeof e === 'object' && 'code' in e && 'reason' in e
        ? `socket closed: ${String(e.code)} ${String(e.reason)}`
        : JSON.stringify(err),
  );
}

/** Opens one subscription on its own socket; resolves on its first payload or failure. */
function subscribe(
  url: string,
  query: string,
  variables: Record<string, unknown>,
  onData: (data: any, readAt: number) => void,
): Promise<void> {
  return new Promise((resolve) => {
    let first = true;
    const ended = () => {
      if (first) counters.failed++;
      else counters.closed++;
      resolve();
    };
    subscriptions.push(
      openSubscription(url, query, variables, {
        next: (result, readAt) => {
          if (result.errors) return note(result.errors);
          onData(result.data, readAt);
          if (first) {
            first = false;
            counters.subscribed++;
            resolve();
          }
        },
        error: (err) => {
          note(err);
          ended();
        },
        end: (reason) => {
          note(new Error(`subscription ended: ${reason}`));
          ended();
        },
      }),
    );
  });
}

async function open(req: OpenRequest): Promise<void> {
  const t0 = performance.now();
  const rankQuery =
    'subscription($s: Int!, $p: ID!) { rankChanged(seasonId: $s, playerId: $p) { rank playerId points } }';
  const topQuery =
    'subscription($s: Int!, $l: Int!) { topChanged(seasonId: $s, window: SEASON, limit: $l) { rank playerId points } }';
  const jobs: Array<() => Promise<void>> = [];
  for (const playerId of req.rankPlayers) {
    let last: number | undefined;
    jobs.push(() =>
      subscribe(req.url, rankQuery, { s: req.seasonId, p: playerId }, (data, readAt) => {
        const e = data?.rankChanged as EntryPayload | null;
        if (!e) return;
        if (last !== undefined) {
          counters.rankPushes++;
          if (e.points !== last) {
            const key = `${e.playerId}:${e.points}`;
            if (!rank.has(key)) rank.set(key, [readAt, Date.now()]);
          }
        }
        last = e.points;
      }),
    );
  }
  for (let i = 0; i < req.topSubscriptions; i++) {
    let last: Set<string> | undefined;
    jobs.push(() =>
      subscribe(req.url, topQuery, { s: req.seasonId, l: req.topLimit }, (data, readAt) => {
        const entries = (data?.topChanged ?? []) as EntryPayload[];
        const receipt: Receipt = [readAt, Date.now()];
        const keys = new Set(entries.map((e) => `${e.playerId}:${e.points}`));
        if (last) {
          counters.topPushes++;
          for (const k of keys) {
            if (last.has(k)) continue;
            let seen = top.get(k);
            if (!seen) top.set(k, (seen = []));
            seen.push(receipt);
          }
        }
        last = keys;
      }),
    );
  }
  // Interleaved, so topChanged sockets are not all opened last.
  const order = interleave(jobs.slice(0, req.rankPlayers.length), jobs.slice(req.rankPlayers.length));
  for (let i = 0; i < order.length; i += req.batch) {
    await Promise.all(order.slice(i, i + req.batch).map((job) => job()));
    send({ type: 'progress', subscribed: counters.subscribed, failed: counters.failed, total: order.length });
  }
  send({ type: 'opened', ms: performance.now() - t0, counters });
}

function interleave<T>(a: T[], b: T[]): T[] {
  const out: T[] = [];
  const every = b.length === 0 ? Infinity : a.length / b.length;
  let ai = 0;
  for (let bi = 0; bi < b.length; bi++) {
    while (ai < Math.round((bi + 1) * every) && ai < a.length) out.push(a[ai++]!);
    out.push(b[bi]!);
  }
  while (ai < a.length) out.push(a[ai++]!);
  return out;
}

process.on('message', (m: ToClients) => {
  if (m.type === 'open') {
    open(m).catch((err) => {
      note(err);
      send({ type: 'opened', ms: 0, counters });
    });
  } else if (m.type === 'count') {
    send({ type: 'counted', counters });
  } else if (m.type === 'collect') {
    send({
      type: 'collected',
      counters,
      rank: [...rank],
      top: [...top],
      loopDelayP99Ms: loop.percentile(99) / 1e6,
      loopDelayMaxMs: loop.max / 1e6,
    });
    rank = new Map();
    top = new Map();
    loop.reset();
  } else if (m.type === 'close') {
    close();
  }
});

/** Closes every socket, then exits: by process.exit, so that --cpu-prof writes its profile. */
function close(): void {
  void Promise.all(subscriptions.map((s) => s.close())).finally(() => process.exit(0));
  setTimeout(() => process.exit(0), 5_000).unref();
}
// The parent stops this process with SIGTERM right after `close`.
process.once('SIGTERM', close);
// The parent died: nothing else will ever close these sockets.
process.on('disconnect', () => process.exit(0));
