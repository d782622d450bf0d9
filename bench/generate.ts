// Deterministic match traffic for the benchmark: the same seed gives the same results, match ids
// included (test/support/generate.ts draws match ids from randomUUID, so two runs would differ).
import type { AcceptedResult } from '../src/domain/board-deltas.js';
import type { MatchResultMessage } from '../src/domain/result-message.js';

/** mulberry32: a tiny seeded PRNG (the one test/support uses), good enough for traffic shapes. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A version-4-shaped UUID drawn from `rand`, so match ids are reproducible. */
function uuidFrom(rand: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(rand() * 16).toString(16));
  hex[12] = '4';
  hex[16] = (8 + Math.floor(rand() * 4)).toString(16);
  const s = hex.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

/** One result without its season: the same traffic is replayed into several seasons. */
export interface BenchResult {
  matchId: string;
  playerId: string;
  points: number;
  endedAtMs: number;
}

/**
 * `count` results of `players` players in matches of 5, ending at whole seconds spread
 * uniformly over [fromMs, toMs), so every scenario writes ~one DAY board per elapsed day and a few
 * WEEK boards, as test/support/generate.ts does. One match in five ends in the same second as
 * the previous one, so equal composite scores occur.
 */
export function generate(opts: {
  count: number;
  players: number;
  seed: number;
  fromMs: number;
  toMs: number;
  maxPoints: number;
}): BenchResult[] {
  const rand = prng(opts.seed);
  const out: BenchResult[] = [];
  const seconds = Math.floor((opts.toMs - opts.fromMs) / 1000);
  let lastEnded = opts.fromMs;
  while (out.length < opts.count) {
    const matchId = uuidFrom(rand);
    const endedAtMs = rand() < 0.2 ? lastEnded : opts.fromMs + Math.floor(rand() * seconds) * 1000;
    lastEnded = endedAtMs;
    const inMatch = new Set<string>();
    while (inMatch.size < 5 && out.length < opts.count) {
      const playerId = String(1 + Math.floor(rand() * opts.players));
      if (inMatch.has(playerId)) continue;
      inMatch.add(playerId);
      out.push({ matchId, playerId, points: Math.floor(rand() * (opts.maxPoints + 1)), endedAtMs });
    }
  }
  return out;
}

/**
 * The same traffic with match ids of its own, so no two scenarios share a match (each is one game
 * server's traffic, as a claim would require). The first 8 hex digits become `tag`; the 24
 * random ones left keep ids unique and in the same relative order.
 */
export function withMatchTag(results: readonly BenchResult[], tag: number): BenchResult[] {
  const prefix = tag.toString(16).padStart(8, '0');
  return results.map((r) => ({ ...r, matchId: prefix + r.matchId.slice(8) }));
}

/** A deterministic sample of about `fraction` of the results (the redelivered ones of scenario d). */
export function sample<T>(items: readonly T[], fraction: number, seed: number): T[] {
  const rand = prng(seed);
  return items.filter(() => rand() < fraction);
}

/** As the ingest consumer hands them to applyResults (partition/offset are bookkeeping only). */
export function toAccepted(results: readonly BenchResult[], seasonId: number): AcceptedResult[] {
  return results.map((r, i) => ({
    matchId: r.matchId,
    playerId: r.playerId,
    seasonId,
    points: r.points,
    endedAt: new Date(r.endedAtMs),
    partition: 0,
    offset: String(i),
  }));
}

/** As a game server's submission lands on Kafka (the versioned JSON the consumer validates). */
export function toMessages(results: readonly BenchResult[], seasonId: number): MatchResultMessage[] {
  return results.map((r) => ({
    v: 1,
    matchId: r.matchId,
    seasonId,
    endedAt: new Date(r.endedAtMs).toISOString(),
    playerId: r.playerId,
    points: r.points,
  }));
}
