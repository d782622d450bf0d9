import { pointsOutOfRange, timeOutOfRange } from './errors.js';
import type { Season, ScoreSplit, SortOrder } from './season.js';

/**
 * Packs a standing into one Redis ZSET score: `rankPoints << timeBits | (maxTime - t)`.
 * Higher composite = better rank in both orders; among equal points the earlier time unit wins.
 */
export interface Codec {
  /** Composite score of `points` reached at `achievedAt`; throws POINTS_/TIME_OUT_OF_RANGE, never rounds. */
  encode(points: number, achievedAt: Date): number;
  /** encode with the time as epoch ms (a rebuild's columns): the same scores and the same errors. */
  encodeMs(points: number, achievedMs: number): number;
  /** Inverse of encode; achievedAt comes back truncated to the time unit (startsAt + t * unit). */
  decode(score: number): { points: number; achievedAt: Date };
  /** Largest points value this codec can hold (2^pointsBits - 1). */
  readonly maxPoints: number;
  /** Largest time offset, in units since season start, this codec can hold (2^timeBits - 1). */
  readonly maxTime: number;
  /** Largest composite this codec can produce (2^(pointsBits + timeBits) - 1). */
  readonly maxScore: number;
  /** Lowest composite with these points (reached at maxTime). */
  pointsFloor(points: number): number;
  /** Highest composite with these points; COMPETITION rank = 1 + ZCOUNT(key, `(${pointsCeil}`, '+inf'). */
  pointsCeil(points: number): number;
  /** The score as a plain decimal integer string for ZADD/ZCOUNT; never exponent or float format. */
  toRedis(score: number): string;
  /** Parses a score string from Redis; throws on anything but a canonical integer this codec can produce. */
  fromRedis(s: string): number;
}

/** The part of a season a codec needs. */
export interface CodecSeason {
  startsAt: Date;
  order: SortOrder;
  split: ScoreSplit;
}

// Largest |epoch ms| a JS Date can hold (ECMA-262 TimeClip).
const MAX_DATE_MS = 8_640_000_000_000_000n;
const MAX_DATE_MS_NUM = Number(MAX_DATE_MS);
// Canonical non-negative integer with at most 16 digits (2^53 has 16); Redis prints every
// integer-valued double below 2^53 this way, both with %.17g (7.0) and ll2string (7.2+).
const REDIS_INTEGER = /^(?:0|[1-9][0-9]{0,15})$/;

// Largest elapsed time the number fast path takes: t * unit stays exact well below 2^53.
const SAFE_ELAPSED = 2 ** 52;

function assertSplit(season: CodecSeason): void {
  const { pointsBits, timeBits, timeUnitSeconds } = season.split;
  const ok =
    Number.isInteger(pointsBits) &&
    pointsBits >= 1 &&
    Number.isInteger(timeBits) &&
    timeBits >= 1 &&
    pointsBits + timeBits <= 53 &&
    Number.isInteger(timeUnitSeconds) &&
    timeUnitSeconds >= 1 &&
    season.startsAt instanceof Date &&
    !Number.isNaN(season.startsAt.getTime());
  // Seasons are validated at creation; reaching this means a corrupted row, not bad user input.
  if (!ok) throw new RangeError(`invalid codec season: ${JSON.stringify(season)}`);
}

/** Builds the score codec of one season (all its windows share it: t counts from season start). */
export function createCodec(season: CodecSeason): Codec {
  assertSplit(season);
  // All bit work is BigInt: JS `<<` and `|` on numbers truncate to 32 bits, and float
  // division can round. Numbers cross the boundary only after a < 2^53 check.
  const timeBits = BigInt(season.split.timeBits);
  const maxPointsN = (1n << BigInt(season.split.pointsBits)) - 1n;
  const maxTimeN = (1n << timeBits) - 1n;
  const maxScoreN = (maxPointsN << timeBits) | maxTimeN;
  const unitMs = BigInt(season.split.timeUnitSeconds) * 1000n;
  const startMs = BigInt(season.startsAt.getTime());
  const desc = season.order === 'DESC';
  // The same in plain numbers, for the fast paths: all below 2^53 (assertSplit).
  const startMsNum = season.startsAt.getTime();
  const unitMsNum = season.split.timeUnitSeconds * 1000;
  const maxPointsNum = Number(maxPointsN);
  const maxTimeNum = Number(maxTimeN);
  const maxScoreNum = Number(maxScoreN);
  const timeFactor = 2 ** season.split.timeBits;

  function rankPoints(points: number): bigint {
    if (!Number.isInteger(points) || points < 0 || points > Number(maxPointsN)) {
      throw pointsOutOfRange('points', `points ${points} is not an integer in 0..${maxPointsN}`);
    }
    const p = BigInt(points);
    // ASC stores the complement so that fewer points still means a higher composite.
    return desc ? p : maxPointsN - p;
  }

  function unitsSinceStart(at: Date): bigint {
    const ms = at instanceof Date ? at.getTime() : Number.NaN;
    if (Number.isNaN(ms)) throw timeOutOfRange('endedAt', 'time is not a valid date');
    const elapsed = BigInt(ms) - startMs;
    if (elapsed < 0n) {
      throw timeOutOfRange('endedAt', `${at.toISOString()} is before the season start`);
    }
    // The one intended loss of precision: floor to the season's time unit (elapsed >= 0, so / floors).
    const t = elapsed / unitMs;
    if (t > maxTimeN) {
      throw timeOutOfRange('endedAt', `${at.toISOString()} is past the ${maxTimeN} time units the season can hold`);
    }
    return t;
  }

  // Fast path in plain numbers (ingest and rebuilds encode every standing they write): exact, since
  // every value is an integer below 2^53. -1 for anything unusual (errors included): encodeExact's.
  function encodeFast(points: number, ms: number): number {
    const elapsed = ms - startMsNum;
    if (Number.isInteger(points) && points >= 0 && points <= maxPointsNum && elapsed >= 0 && elapsed <= SAFE_ELAPSED) {
      let t = Math.floor(elapsed / unitMsNum);
      // A correctly rounded quotient can land on the next integer, never below the true floor.
      if (t * unitMsNum > elapsed) t -= 1;
      if (t <= maxTimeNum) return (desc ? points : maxPointsNum - points) * timeFactor + (maxTimeNum - t);
    }
    return -1;
  }

  function encodeExact(points: number, achievedAt: Date): number {
    const rank = rankPoints(points);
    const t = unitsSinceStart(achievedAt);
    // Reversed time: an earlier achievement gets the larger low bits and so ranks higher.
    return Number((rank << timeBits) | (maxTimeN - t));
  }

  function checkScore(score: number): bigint {
    if (!Number.isSafeInteger(score) || score < 0 || BigInt(score) > maxScoreN) {
      throw new RangeError(`score ${score} is not an integer in 0..${maxScoreN}`);
    }
    return BigInt(score);
  }

  return {
    maxPoints: Number(maxPointsN),
    maxTime: Number(maxTimeN),
    maxScore: Number(maxScoreN),
    encode(points, achievedAt) {
      const score = encodeFast(points, achievedAt instanceof Date ? achievedAt.getTime() : Number.NaN);
      return score >= 0 ? score : encodeExact(points, achievedAt);
    },
    encodeMs(points, achievedMs) {
      const score = encodeFast(points, achievedMs);
      return score >= 0 ? score : encodeExact(points, new Date(achievedMs));
    },
    decode(score) {
      // Fast path in plain numbers (reads decode every entry they return): dividing by a power of
      // two is exact, and with a start at or after 1970 every step stays an integer below 2^53.
      if (Number.isSafeInteger(score) && score >= 0 && score <= maxScoreNum && startMsNum >= 0) {
        const rank = Math.floor(score / timeFactor);
        const ms = startMsNum + (maxTimeNum - (score - rank * timeFactor)) * unitMsNum;
        if (ms <= MAX_DATE_MS_NUM) return { points: desc ? rank : maxPointsNum - rank, achievedAt: new Date(ms) };
      }
      const s = checkScore(score);
      const rank = s >> timeBits;
      const t = maxTimeN - (s & maxTimeN);
      const ms = startMs + t * unitMs;
      if (ms > MAX_DATE_MS) throw new RangeError(`score ${score} decodes to a time past the Date range`);
      return { points: Number(desc ? rank : maxPointsN - rank), achievedAt: new Date(Number(ms)) };
    },
    pointsFloor(points) {
      return Number(rankPoints(points) << timeBits);
    },
    pointsCeil(points) {
      return Number((rankPoints(points) << timeBits) | maxTimeN);
    },
    toRedis(score) {
      // A safe integer prints as plain digits (exponent notation starts at 1e21).
      if (Number.isSafeInteger(score) && score >= 0 && score <= maxScoreNum) return String(score);
      // BigInt#toString never uses exponent notation, whatever the magnitude; throws when out of range.
      return checkScore(score).toString();
    },
    fromRedis(s) {
      // Strict on purpose: a Lua tostring() of a score gives "%.14g" ("9.007199254741e+15"),
      // which has already lost digits; failing loudly beats ranking on a rounded score.
      if (typeof s !== 'string' || !REDIS_INTEGER.test(s)) {
        throw new RangeError(`Redis score ${JSON.stringify(s)} is not a canonical integer`);
      }
      const n = Number(s);
      // Below 2^53 the Number comparison is exact (no BigInt per score read); above, checkScore decides.
      if (!Number.isSafeInteger(n) || n > maxScoreNum) checkScore(n);
      return n;
    },
  };
}

/** Codecs are pure and a season's split never changes: each season's is built once. */
const codecs = new WeakMap<Season, Codec>();

/** The codec of a season's boards. */
export function codecOf(season: Season): Codec {
  let codec = codecs.get(season);
  if (!codec) codecs.set(season, (codec = createCodec(season)));
  return codec;
}
