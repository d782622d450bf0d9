import { badInput, pointsOutOfRange, timeOutOfRange } from './errors.js';
import type { RankStyle, ScoreSplit, ScoringMode, SortOrder } from './season.js';

/** A player's current score on one board. */
export interface Standing {
  playerId: string;
  points: number;
  achievedAt: Date;
}

/** A standing with its 1-based rank. */
export type RankedStanding = Standing & { rank: number };

/** What a player holds on a board before rank: their points and when they reached them. */
export interface StandingValue {
  points: number;
  achievedAt: Date;
}

/** One match result of one player, as it applies to a standing. */
export interface ResultValue {
  points: number;
  endedAt: Date;
}

const utf8 = new TextEncoder();

/** Compares two strings as Redis does members: byte-wise over their UTF-8 encoding (memcmp). */
export function compareBytes(a: string, b: string): number {
  const x = utf8.encode(a);
  const y = utf8.encode(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const d = (x[i] as number) - (y[i] as number);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

function unitIndex(at: Date, startMs: number, unitMs: number): number {
  // Exact floor division, so this oracle truncates exactly like the codec.
  const elapsed = BigInt(at.getTime()) - BigInt(startMs);
  const unit = BigInt(unitMs);
  const q = elapsed / unit;
  return Number(elapsed < 0n && q * unit !== elapsed ? q - 1n : q);
}

/**
 * Reference ranking, best first: better points, then earlier time unit, then playerId bytes
 * DESCENDING. That last rule is Redis's: a ZSET orders equal scores by member bytes ascending and
 * ZREVRANGE/ZREVRANK reverse the whole order, so among equal composites '9' comes before '10'.
 */
export function rankStandings(
  standings: readonly Standing[],
  order: SortOrder,
  style: RankStyle,
  timeUnitSeconds: number,
  startsAt: Date,
): RankedStanding[] {
  const startMs = startsAt.getTime();
  const unitMs = timeUnitSeconds * 1000;
  const better = (a: number, b: number): number => (order === 'DESC' ? b - a : a - b);
  const keyed = standings.map((s) => ({ s, t: unitIndex(s.achievedAt, startMs, unitMs) }));
  keyed.sort((a, b) => better(a.s.points, b.s.points) || a.t - b.t || compareBytes(b.s.playerId, a.s.playerId));
  let rank = 0;
  return keyed.map(({ s }, i) => {
    // COMPETITION: 1 + players with strictly better points; the list is sorted, so that is the
    // index of the first player with these points.
    const prev = keyed[i - 1];
    if (style === 'ORDINAL' || prev === undefined || prev.s.points !== s.points) rank = i + 1;
    return { ...s, rank };
  });
}

function checkResult(result: ResultValue): void {
  // Negative points would let a SUM total fall, which ZADD GT cannot mirror.
  if (!Number.isSafeInteger(result.points) || result.points < 0) {
    throw pointsOutOfRange('points', `points ${result.points} is not a non-negative integer`);
  }
  if (Number.isNaN(result.endedAt.getTime())) {
    throw timeOutOfRange('endedAt', 'endedAt is not a valid date');
  }
}

const earlier = (a: Date, b: Date): Date => (b.getTime() < a.getTime() ? b : a);
const later = (a: Date, b: Date): Date => (b.getTime() > a.getTime() ? b : a);

function applyBest(current: StandingValue, result: ResultValue, order: SortOrder): StandingValue {
  const { points, endedAt } = result;
  if (points === current.points) return { points, achievedAt: earlier(current.achievedAt, endedAt) };
  const improves = order === 'DESC' ? points > current.points : points < current.points;
  return improves ? { points, achievedAt: endedAt } : current;
}

function applySum(current: StandingValue, result: ResultValue): StandingValue {
  const points = current.points + result.points;
  // Invariant: a positive total dates from its latest positive result (when it was reached);
  // a zero total dates from its earliest result. Both are max/min folds, so arrival order is moot.
  if (result.points === 0) {
    const achievedAt = current.points > 0 ? current.achievedAt : earlier(current.achievedAt, result.endedAt);
    return { points, achievedAt };
  }
  const achievedAt = current.points > 0 ? later(current.achievedAt, result.endedAt) : result.endedAt;
  return { points, achievedAt };
}

/**
 * What a board's rule needs to fold results: its scoring and order, and for LAST the clock its
 * scores keep (season start and time unit), since LAST compares results by their time unit.
 */
export interface FoldRule {
  scoring: ScoringMode;
  order: SortOrder;
  startsAt: Date;
  split: Pick<ScoreSplit, 'timeUnitSeconds'>;
}

function applyLast(current: StandingValue, result: ResultValue, rule: FoldRule): StandingValue {
  // The latest time unit wins; within one unit the result BEST would keep (docs/design.md#last).
  // Redis can check exactly this from the scores alone (the unit is the score's low bits), which
  // is what lets a score that goes down stay exact under replays and stale writers.
  const unitMs = rule.split.timeUnitSeconds * 1000;
  const startMs = rule.startsAt.getTime();
  const u = unitIndex(result.endedAt, startMs, unitMs) - unitIndex(current.achievedAt, startMs, unitMs);
  if (u > 0) return { points: result.points, achievedAt: result.endedAt };
  if (u < 0) return current;
  return applyBest(current, result, rule.order);
}

/**
 * The standing after one more result. Order-independent (any arrival order gives the same final
 * value). BEST and SUM are monotone in composite score (never lower), so Redis applies them with
 * ZADD GT; LAST is monotone in (time unit, composite), which applyStandings-5.lua checks instead.
 */
export function applyResult(current: StandingValue | undefined, result: ResultValue, rule: FoldRule): StandingValue {
  checkResult(result);
  if (rule.scoring === 'SUM' && rule.order === 'ASC') {
    throw badInput('order', 'SUM scoring requires DESC order');
  }
  if (current === undefined) return { points: result.points, achievedAt: result.endedAt };
  if (rule.scoring === 'LAST') return applyLast(current, result, rule);
  return rule.scoring === 'BEST' ? applyBest(current, result, rule.order) : applySum(current, result);
}

/**
 * Combines two standings of one player on one board as if all their results had been applied:
 * a standing summarises its results exactly (best, total or latest, plus the time rule above),
 * so a batch can be pre-folded in memory and merged into the stored row.
 */
export function mergeStandings(a: StandingValue, b: StandingValue, rule: FoldRule): StandingValue {
  return applyResult(a, { points: b.points, endedAt: b.achievedAt }, rule);
}
