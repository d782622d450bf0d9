// Simulated game servers: realistic matches submitted through the public submitMatchResult
// mutation over HTTP with the typed client (src/client/ladder-client.ts), exactly as a real game
// server would. Used by `npm run demo`, and on its own:
//   npm run simulate -- --url http://localhost:4000/graphql --key <key> --season 1 --rate 50
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createLadderClient, LadderError } from '../src/client/ladder-client.js';

/**
 * What startSimulator needs: player ids from FIRST_PLAYER_ID, `players` of them; each match counts in
 * every season, in one submission.
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
}

/** A 32-bit integer hash (lowbias32): deterministic names and skills without storing anything. */
function hash32(n: number): number {
  let x = Math.imul(n ^ (n >>> 16), 0x7feb352d);
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
  return (x ^ (x >>> 16)) >>> 0;
}

const CHARACTERS = ['Kestrel', 'Ember', 'Vanta', 'Juno', 'Rook', 'Sable', 'Orion', 'Mako'];
const MAPS = ['Harbor', 'Dunes', 'Citadel', 'Glacier'];
// Where the demo's players live and which clan they are in (docs/design.md#scopes).
const REGIONS = ['BR-SP', 'BR-RJ', 'US-CA', 'US-NY', 'DE', 'FR', 'JP', 'KR', 'GB', 'PL'];
const CLANS = ['wolves', 'ravens', 'otters', 'foxes', 'owls', 'lynx', 'bears', 'hawks'];

/** A player's region and clan (none for one player in four), the same in every run. */
export function scopesFor(id: number): { region: string; groups: string[] } {
  const h = hash32(id * 7 + 3);
  return { region: REGIONS[h % REGIONS.length]!, groups: h % 4 === 0 ? [] : [CLANS[(h >>> 8) % CLANS.length]!] };
}

const ADJECTIVES =
  'Swift Silent Crimson Lucky Brave Frosty Sneaky Mighty Clever Wild Golden Shadow Rapid Stormy Iron Cosmic Fuzzy Grumpy Jolly Nimble'.split(
    ' ',
  );
const ANIMALS =
  'Otter Falcon Badger Panda Wolf Gecko Lynx Yak Heron Moose Cobra Koala Raven Bison Ferret Walrus Mantis Puffin Jaguar Llama'.split(
    ' ',
  );

/** The display name of a simulated player, the same on every run and unique (e.g. "SwiftOtter42"). */
export function playerName(id: number): string {
  const h = hash32(id);
  return `${ADJECTIVES[h % ADJECTIVES.length]}${ANIMALS[(h >>> 8) % ANIMALS.length]}${id}`;
}

/** A player's skill in 0..1, fixed per id: the best players stay near the top, the rest churn. */
function skillOf(id: number): number {
  const h = hash32(id ^ 0x5eed);
  // The mean of three uniforms: most players are average, a few are very good or very bad.
  return ((h & 0x3ff) + ((h >>> 10) & 0x3ff) + ((h >>> 20) & 0x3ff)) / (3 * 0x3ff);
}

/**
 * The id of the player with activity rank 0..players-1 (0 plays most). A stride coprime with
 * `players` makes this a permutation, so the busiest players are spread over the id range
 * instead of being ids 1, 2, 3...
 */
function idOfActivityRank(rank: number, players: number): number {
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  let stride = 7919;
  while (gcd(stride, players) !== 1) stride += 2;
  return ((rank * stride + 4242) % players) + FIRST_PLAYER_ID;
}

/**
 * The simulated players' first id: away from the small ids tests generate, since the simulator
 * gives its players regions and clans, which are each player's everywhere (docs/design.md#scopes).
 */
export const FIRST_PLAYER_ID = 1_000_001;

/** The id of the simulated player who plays the most: a good one to look up with `around`. */
export function regularPlayerId(players: number): string {
  return String(idOfActivityRank(0, players));
}

/** One match: 2..8 distinct players; the busiest plays ~100x as often as the median player. */
function pickPlayers(players: number): number[] {
  const size = Math.min(players, 2 + Math.floor(Math.random() * 7));
  const ids = new Set<number>();
  while (ids.size < size) ids.add(idOfActivityRank(Math.floor(players * Math.random() ** 2), players));
  return [...ids];
}

/** Points of one player in one match: mostly skill, some luck, scaled to the season's maximum. */
function pointsFor(id: number, maxPoints: number): number {
  const luck = (Math.random() + Math.random() + Math.random() - 1.5) * 0.1; // -0.15..0.15
  // At most 0.95: nobody pins the maximum, so the head is ordered by skill, not by ties at the cap.
  const performance = Math.max(0, 0.1 + 0.7 * skillOf(id) + luck);
  return Math.round(performance * performance * maxPoints);
}

/**
 * A player's further stats in one match, for the boards of its seasons that rank them (max: each
 * stat's largest value): `wins` 1 for the match's winner, a stat whose name holds `time` lower for
 * better players (a lap time), any other higher (kills).
 */
function statsFor(id: number, winner: boolean, maxes: ReadonlyMap<string, number>) {
  const luck = (Math.random() - 0.5) * 0.3;
  const performance = Math.min(1, Math.max(0, 0.1 + 0.7 * skillOf(id) + luck));
  return [...maxes].map(([name, max]) => ({
    name,
    value:
      name === 'wins'
        ? Math.min(max, winner ? 1 : 0)
        : Math.round(max * (name.includes('time') ? 0.1 + 0.15 * (1 - performance) : 0.9 * performance ** 2)),
  }));
}

// Retryable errors (UNAVAILABLE, RATE_LIMITED, the network) are retried by the client with the
// same input, so the same matchId: resubmitting it is safe (docs/design.md#data-flow).
const MAX_ATTEMPTS = 8;
// Bounds memory when the server is down: beyond this, new matches are skipped, not queued.
const MAX_IN_FLIGHT = 500;

/** One line for a failure: the API's code and message, or what happened on the network. */
const describe = (err: unknown) =>
  err instanceof LadderError ? (err.code === 'NETWORK' ? err.message : `${err.code}: ${err.message}`) : String(err);

/** Starts submitting matches at `ratePerSec`; stop() (or the signal) ends it once in-flight calls settle. */
export function startSimulator(opts: SimulatorOptions) {
  const log = opts.log ?? ((line: string) => console.log(line));
  const stopper = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, stopper.signal]) : stopper.signal;
  setMaxListeners(MAX_IN_FLIGHT + 10, signal); // every submission backing off listens to it
  const named = new Set<number>(); // players whose name the server has: sent once per run
  const stats: SimulatorStats = { accepted: 0, failed: 0, retried: 0, skipped: 0 };
  const reported = new Set<string>(); // each distinct failure is logged once
  const inFlight = new Set<Promise<void>>();
  const client = createLadderClient({ url: opts.url, apiKey: opts.apiKey });
  let maxPoints: number | undefined;
  /** The further stats the seasons' boards rank, each with the least of its boards' largest values. */
  const statMaxes = new Map<string, number>();

  /** The most points a match may carry: the least of its seasons' maxPointsPerMatch; and statMaxes. */
  async function loadSeasons(): Promise<number> {
    const entries = await Promise.all(
      opts.seasonIds.map(async (id) => {
        const season = await client.season(id, { attempts: 1 });
        if (!season) throw new Error(`season ${id} does not exist at ${opts.url}`);
        if (season.status !== 'ACTIVE')
          log(`[simulator] warning: season ${id} is ${season.status}; submissions will be rejected`);
        for (const b of season.boards) {
          const ranked = b.keys.length > 0 ? b.keys : [{ stat: b.stat!, max: b.maxValue }];
          for (const { stat, max } of ranked)
            if (stat !== 'points') statMaxes.set(stat, Math.min(max, statMaxes.get(stat) ?? max));
        }
        return season.maxPointsPerMatch;
      }),
    );
    return Math.min(...entries);
  }

  /**
   * One match to all the seasons, retried (by the client) with the SAME matchId until accepted or
   * clearly refused: each season takes it once.
   */
  async function submit(ids: number[]): Promise<void> {
    const map = MAPS[Math.floor(Math.random() * MAPS.length)]!;
    const points = ids.map((id) => pointsFor(id, maxPoints!));
    const winner = points.indexOf(Math.max(...points));
    const results = ids.map((id, i) => ({
      playerId: String(id),
      points: points[i]!,
      ...(statMaxes.size > 0 ? { stats: statsFor(id, i === winner, statMaxes) } : {}),
      // What a game server attaches to a result; the board shows the one of the result that set the standing.
      metadata: { character: CHARACTERS[hash32(id) % CHARACTERS.length]!, map },
      // Name and scopes once per run: each is stored, and scopes cost ingest a step (docs/design.md#scopes).
      ...(named.has(id) ? {} : { displayName: playerName(id), scopes: scopesFor(id) }),
    }));
    const endedAt = new Date(Date.now() - 1_000 - Math.floor(Math.random() * 20_000));
    const input = { matchId: randomUUID(), seasonIds: [...opts.seasonIds], endedAt: endedAt.toISOString(), results };
    try {
      await client.submitMatchResult(input, {
        attempts: MAX_ATTEMPTS,
        signal,
        onRetry: () => {
          stats.retried++;
        },
      });
      stats.accepted++;
      for (const id of ids) named.add(id);
    } catch (err) {
      stats.failed++;
      const line = describe(err);
      if (!reported.has(line)) {
        reported.add(line);
        log(`[simulator] submission failed: ${line}`);
      }
    }
  }

  function launchMatch(): void {
    if (inFlight.size >= MAX_IN_FLIGHT) {
      stats.skipped++;
      return;
    }
    const p = submit(pickPlayers(opts.players)).finally(() => inFlight.delete(p));
    inFlight.add(p);
  }

  // Ticks of 100 ms with a fractional carry, so any rate (even 0.5/s) is honoured on average.
  let [carry, lastAccepted] = [0, 0];
  const ticker = setInterval(() => {
    if (!maxPoints || signal.aborted) return;
    carry += opts.ratePerSec / 10;
    for (; carry >= 1; carry--) launchMatch();
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

  const ready = loadSeasons().then((m) => {
    maxPoints = m;
  });
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
