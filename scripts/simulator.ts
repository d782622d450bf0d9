// Simulated game servers: realistic matches submitted through the public submitMatchResult
// mutation over HTTP with the typed client (src/client/ladder-client.ts), exactly as a real game
// server would. Used by `npm run demo`, and on its own:
//   npm run simulate -- --url http://localhost:4000/graphql --key <key> --season 1 --rate 50
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createLadderClient, LadderError } from '../src/client/ladder-client.js';
import { matchResults, pickPlayers } from './simulated-players.js';

export { playerName, regularPlayerId } from './simulated-players.js';

/**
 * What startSimulator needs: player ids from FIRST_PLAYER_ID (simulated-players.ts), `players` of them;
 * each match counts in every season, in one submission.
 */
export interface SimulatorOptions {
  url: string;
  apiKey: string;
  seasonIds: readonly number[];
  ratePerSec: number;
  players: number;
  signal?: AbortSignal;
  log?: (line: string) => void;
  /** How often a summary line is logged; 0 turns it off. */
  summaryEveryMs?: number;
}

/** Counters of a simulator run, in submissions (one match, counted in every season). */
export interface SimulatorStats {
  accepted: number;
  failed: number;
  retried: number;
  skipped: number;
  /** Sent again without a season that had just closed (SEASON_CLOSED), and accepted or not. */
  resent: number;
}

// Retryable errors (UNAVAILABLE, RATE_LIMITED, the network) are retried by the client with the
// same input, so the same matchId: resubmitting it is safe (docs/design.md#data-flow).
const MAX_ATTEMPTS = 8;
// Bounds memory when the server is down: beyond this, new matches are skipped, not queued.
const MAX_IN_FLIGHT = 500;

/** One line for a failure: the API's code and message, or what happened on the network. */
const describe = (err: unknown) =>
  err instanceof LadderError ? (err.code === 'NETWORK' ? err.message : `${err.code}: ${err.message}`) : String(err);

// A season is left out of the matches that start within this long of its end: a submission takes
// a moment to arrive, and the API refuses a season from its endsAt on (SEASON_CLOSED).
const END_MARGIN_MS = 1_000;

/** A season matches go to, with its dates (ms). */
interface Target {
  id: number;
  startsAt: number;
  endsAt: number;
}

/** What the current seasons allow: the most points of a match, the stats their boards rank. */
interface Plan {
  seasons: Target[];
  maxPoints: number;
  /** The further stats the seasons' boards rank, each with the least of its boards' largest values. */
  statMaxes: Map<string, number>;
}

/**
 * Starts submitting matches at `ratePerSec`; stop() (or the signal) ends it once in-flight calls
 * settle. setSeasons() moves the next matches to other seasons. A season that ends (or is found
 * closed when a submission is refused with SEASON_CLOSED) gets no more matches; a refused match
 * is sent once more without it.
 */
export function startSimulator(opts: SimulatorOptions) {
  const log = opts.log ?? ((line: string) => console.log(line));
  const stopper = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, stopper.signal]) : stopper.signal;
  setMaxListeners(MAX_IN_FLIGHT + 10, signal); // every submission backing off listens to it
  const named = new Set<number>(); // players whose name the server has: sent once per run
  const stats: SimulatorStats = { accepted: 0, failed: 0, retried: 0, skipped: 0, resent: 0 };
  const reported = new Set<string>(); // each distinct failure is logged once
  const once = (line: string) => {
    if (!reported.has(line)) {
      reported.add(line);
      log(line);
    }
  };
  const inFlight = new Set<Promise<void>>();
  const client = createLadderClient({ url: opts.url, apiKey: opts.apiKey });
  const closed = new Set<number>(); // seasons over: no match goes to them again
  let plan: Plan | undefined;
  let plans = 0; // the last setSeasons wins

  /** The rules of `ids` (one request each) and their dates (the ACTIVE seasons' list; every season's if one is not). */
  async function load(ids: readonly number[]): Promise<Plan> {
    if (ids.length === 0) throw new Error('no season to send matches to');
    const [rules, active] = await Promise.all([
      Promise.all(ids.map((id) => client.season(id, { attempts: 1 }))),
      client.seasons({ status: 'ACTIVE' }, { attempts: 1 }),
    ]);
    const all = ids.every((id) => active.some((s) => s.id === id)) ? active : await client.seasons({}, { attempts: 1 });
    const dates = new Map(all.map((s) => [s.id, { startsAt: Date.parse(s.startsAt), endsAt: Date.parse(s.endsAt) }]));
    const statMaxes = new Map<string, number>();
    const seasons = ids.map((id, i) => {
      const season = rules[i];
      const when = dates.get(id);
      if (!season || !when) throw new Error(`season ${id} does not exist at ${opts.url}`);
      if (season.status === 'CLOSED') {
        closed.add(id);
        once(`[simulator] warning: season ${id} is CLOSED; no matches go to it`);
      } else if (season.status !== 'ACTIVE') {
        log(`[simulator] warning: season ${id} is ${season.status}; submissions will be rejected`);
      }
      for (const b of season.boards) {
        const ranked = b.keys.length > 0 ? b.keys : [{ stat: b.stat!, max: b.maxValue }];
        for (const { stat, max } of ranked)
          if (stat !== 'points') statMaxes.set(stat, Math.min(max, statMaxes.get(stat) ?? max));
      }
      return { id, ...when };
    });
    return { seasons, maxPoints: Math.min(...rules.map((s) => s!.maxPointsPerMatch)), statMaxes };
  }

  /** Reads the seasons of `ids`, then sends the next matches to them (unless a later call came first). */
  async function switchTo(ids: readonly number[]): Promise<void> {
    const call = ++plans;
    const next = await load(ids);
    if (call === plans) plan = next;
  }

  /** The seasons of a match ending now: those not closed nor about to end. */
  function targets(p: Plan, now: number): Target[] {
    return p.seasons.filter((s) => {
      if (closed.has(s.id)) return false;
      if (s.endsAt - now > END_MARGIN_MS) return true;
      closed.add(s.id);
      log(`[simulator] season ${s.id} ends: no more matches go to it`);
      return false;
    });
  }

  const checking = new Map<number, Promise<void>>();
  /** After a SEASON_CLOSED: marks those of `ids` that are CLOSED now (one request per season at a time). */
  async function markClosed(ids: readonly number[]): Promise<void> {
    const check = (id: number) =>
      client
        .season(id, { attempts: 3, signal })
        .then((season) => {
          if (season?.status !== 'CLOSED' || closed.has(id)) return;
          closed.add(id);
          log(`[simulator] season ${id} is closed: no more matches go to it`);
        })
        .finally(() => checking.delete(id));
    await Promise.all(
      ids
        .filter((id) => !closed.has(id))
        .map((id) => {
          const running = checking.get(id) ?? check(id);
          checking.set(id, running);
          return running;
        }),
    );
  }

  /**
   * One match to all the seasons, retried (by the client) with the SAME matchId until accepted or
   * clearly refused: each season takes it once. Refused with SEASON_CLOSED (a season closed since it
   * was sent), it is sent once more to those still open: the refusal took nothing.
   */
  async function submit(p: Plan, ids: number[]): Promise<void> {
    const now = Date.now();
    const seasons = targets(p, now);
    if (seasons.length === 0) {
      once('[simulator] every season is over: no more matches are sent');
      return;
    }
    const results = matchResults(ids, p.maxPoints, p.statMaxes, named);
    // Ended a little while ago, but within every season of the match (one just started, say).
    const latestStart = Math.max(...seasons.map((s) => s.startsAt));
    const endedAt = new Date(Math.max(latestStart, now - 1_000 - Math.floor(Math.random() * 20_000)));
    const input = { matchId: randomUUID(), endedAt: endedAt.toISOString(), results };
    const call = {
      attempts: MAX_ATTEMPTS,
      signal,
      onRetry: () => {
        stats.retried++;
      },
    };
    const send = async (seasonIds: number[]) => {
      await client.submitMatchResult({ ...input, seasonIds }, call);
      stats.accepted++;
      for (const id of ids) named.add(id);
    };
    const sent = seasons.map((s) => s.id);
    try {
      await send(sent);
    } catch (err) {
      let last = err;
      if (err instanceof LadderError && err.code === 'SEASON_CLOSED' && !signal.aborted) {
        const open = await markClosed(sent).then(
          () => sent.filter((id) => !closed.has(id)),
          () => [],
        );
        if (open.length > 0 && open.length < sent.length) {
          stats.resent++;
          try {
            await send(open);
            return;
          } catch (again) {
            last = again;
          }
        }
      }
      stats.failed++;
      once(`[simulator] submission failed: ${describe(last)}`);
    }
  }

  function launchMatch(p: Plan): void {
    if (inFlight.size >= MAX_IN_FLIGHT) {
      stats.skipped++;
      return;
    }
    const m = submit(p, pickPlayers(opts.players)).finally(() => inFlight.delete(m));
    inFlight.add(m);
  }

  // Ticks of 100 ms with a fractional carry, so any rate (even 0.5/s) is honoured on average.
  let [carry, lastAccepted] = [0, 0];
  const ticker = setInterval(() => {
    if (!plan || signal.aborted) return;
    carry += opts.ratePerSec / 10;
    for (; carry >= 1; carry--) launchMatch(plan);
  }, 100);
  const summaryEveryMs = opts.summaryEveryMs ?? 10_000;
  const summary =
    summaryEveryMs > 0
      ? setInterval(() => {
          const recent = stats.accepted - lastAccepted;
          lastAccepted = stats.accepted;
          const skipped = stats.skipped > 0 ? `, ${stats.skipped} skipped (server too slow)` : '';
          log(
            `[simulator] last ${summaryEveryMs / 1000} s: ${recent} submissions accepted (${((recent * 1000) / summaryEveryMs).toFixed(1)}/s); ` +
              `total ${stats.accepted} accepted, ${stats.failed} failed, ${stats.retried} retries${skipped}; ${named.size} players seen`,
          );
        }, summaryEveryMs)
      : undefined;

  const ready = switchTo(opts.seasonIds);
  signal.addEventListener(
    'abort',
    () => {
      clearInterval(ticker);
      clearInterval(summary);
    },
    { once: true },
  );
  return {
    /** Resolves once the seasons are known and submitting has begun; rejects if they cannot be read. */
    ready,
    stats: (): Readonly<SimulatorStats> => ({ ...stats }),
    /**
     * The next matches go to `seasonIds` instead (the demo follows a repeating season so): resolves
     * once their rules are read and the switch is made; rejects, changing nothing, if they cannot be read.
     */
    setSeasons: (seasonIds: readonly number[]): Promise<void> => switchTo(seasonIds),
    /** Stops launching matches (retries give up) and resolves once in-flight submissions settled. */
    async stop(): Promise<void> {
      stopper.abort();
      await ready.catch(() => {});
      await Promise.all(inFlight);
    },
  };
}

const USAGE =
  'usage: npm run simulate -- --key <API key, scope submit> --season <id> [--season <id>...]\n' +
  '         [--url http://localhost:4000/graphql] [--rate <matches/s, 20>] [--players <5000>]';

/** The command line: runs until Ctrl-C; exit code 2 on bad usage, 1 when the seasons cannot be read. */
async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        url: { type: 'string', default: 'http://localhost:4000/graphql' },
        key: { type: 'string' },
        rate: { type: 'string', default: '20' },
        season: { type: 'string', multiple: true },
        players: { type: 'string', default: '5000' },
      },
    }));
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const [seasonIds, ratePerSec, players] = [
    (values.season ?? []).map(Number),
    Number(values.rate),
    Number(values.players),
  ];
  const problems = [
    !values.key && '--key is required',
    (seasonIds.length === 0 || !seasonIds.every((n) => Number.isInteger(n) && n > 0)) && '--season <id> is required',
    !(ratePerSec > 0) && '--rate must be a positive number',
    !(Number.isInteger(players) && players >= 2) && '--players must be an integer >= 2',
  ].filter(Boolean);
  if (problems.length > 0) {
    console.error(`${problems.join('\n')}\n${USAGE}`);
    return 2;
  }
  const sim = startSimulator({ url: values.url, apiKey: values.key!, seasonIds, ratePerSec, players });
  try {
    await sim.ready;
  } catch (err) {
    console.error(`cannot start: ${(err as Error).message}; is ladder running (npm start)?`);
    await sim.stop();
    return 1;
  }
  console.log(
    `[simulator] ${ratePerSec} matches/s of ${players} players to season(s) ${seasonIds.join(', ')} at ${values.url}; Ctrl-C stops`,
  );
  await new Promise((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await sim.stop();
  const s = sim.stats();
  console.log(`[simulator] stopped: ${s.accepted} accepted, ${s.failed} failed, ${s.retried} retries`);
  return 0;
}

// Only when run directly (`tsx scripts/simulator.ts`), not when the demo imports it.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
