// Deterministic match traffic for tests and benchmarks.
import { randomUUID } from 'node:crypto';
import type { Season } from '../../src/domain/season.js';
import type { MatchResultMessage } from '../../src/domain/result-message.js';

/** mulberry32: a tiny seeded PRNG, so a failing run can be replayed with its seed. */
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

export function shuffle<T>(items: T[], rand: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/**
 * `results` distinct player results for `players` players in matches of 5, spread over the
 * season's past days (so several DAY and WEEK boards), with many equal points and some equal
 * seconds, so ties are exercised. Times are whole seconds.
 */
export function generateResults(
  season: Season,
  opts: { results: number; players: number; seed: number; maxPoints?: number; now?: number },
): MatchResultMessage[] {
  const rand = prng(opts.seed);
  const maxPoints = opts.maxPoints ?? 60;
  const from = season.startsAt.getTime();
  const to = Math.min(opts.now ?? Date.now(), season.endsAt.getTime() - 1) - 1000;
  const out: MatchResultMessage[] = [];
  let lastEnded = from;
  while (out.length < opts.results) {
    const matchId = randomUUID();
    // One match in five ends in the same second as the previous one: same-second ties.
    const endedMs = rand() < 0.2 ? lastEnded : from + Math.floor((rand() * (to - from)) / 1000) * 1000;
    lastEnded = endedMs;
    const endedAt = new Date(endedMs).toISOString();
    const inMatch = new Set<string>();
    while (inMatch.size < 5 && out.length < opts.results) {
      const playerId = String(1 + Math.floor(rand() * opts.players));
      if (inMatch.has(playerId)) continue;
      inMatch.add(playerId);
      out.push({ v: 1, matchId, seasonId: season.id, endedAt, playerId, points: Math.floor(rand() * (maxPoints + 1)) });
    }
  }
  return out;
}

/** Every message sent 1-5 times, the whole stream shuffled: replays in any order. */
export function withReplays(messages: readonly MatchResultMessage[], seed: number): MatchResultMessage[] {
  const rand = prng(seed);
  const out: MatchResultMessage[] = [];
  for (const m of messages) {
    const copies = 1 + Math.floor(rand() * 5);
    for (let i = 0; i < copies; i++) out.push(m);
  }
  return shuffle(out, rand);
}

/** As Kafka records: key = playerId, so one player's results stay in order on one partition. */
export function toRecords(messages: readonly MatchResultMessage[]): Array<{ key: string; value: string }> {
  return messages.map((m) => ({ key: m.playerId, value: JSON.stringify(m) }));
}
