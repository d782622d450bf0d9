// Rank history (docs/design.md#rank-history): the SEASON board's every rank, kept at each UTC
// midnight of the season. Pure: when a snapshot is due, and how a stored rank reads, 4 bytes a player.
import type { Season } from './season.js';

const DAY_MS = 86_400_000;

/** Slots per rank_snapshots row: 64 KiB of ranks. */
export const RANK_CHUNK_SLOTS = 16_384;

/** The most snapshots one Entry.rankHistory asks for. */
export const RANK_HISTORY_MAX = 90;

/** A player's rank at one snapshot; null: not on the board then. */
export interface RankPoint {
  /** The UTC midnight the snapshot stands for. */
  at: Date;
  /** When it was taken: the ranks are the board as ingest had applied it then. */
  takenAt: Date;
  rank: number | null;
}

/**
 * The boundary whose snapshot is due at `at`, or null: the last UTC midnight, if the season was
 * ACTIVE across it (after its start, not after its end) and `latest` (the newest snapshot taken)
 * is older. Only the last one: a snapshot taken late is the board as it is then, never a guess
 * at an earlier midnight, so a scheduler down for two days leaves one gap, not two wrong points.
 */
export function snapshotDue(
  season: Pick<Season, 'status' | 'startsAt' | 'endsAt'>,
  at: Date,
  latest: Date | undefined,
): Date | null {
  if (season.status !== 'ACTIVE') return null;
  const boundary = Math.floor(at.getTime() / DAY_MS) * DAY_MS;
  if (boundary <= season.startsAt.getTime() || boundary > season.endsAt.getTime()) return null;
  if (latest && latest.getTime() >= boundary) return null;
  return new Date(boundary);
}

/** A slot's 4 bytes as read back (short or absent when the snapshot predates the slot): the rank or null. */
export function unpackRank(bytes: Buffer | null | undefined): number | null {
  if (!bytes || bytes.length < 4) return null;
  const rank = bytes.readUInt32BE(0);
  return rank === 0 ? null : rank;
}

/** Places gained since a snapshot (positive: climbed); null when either rank is missing. */
export function rankDelta(then: number | null | undefined, now: number | null | undefined): number | null {
  return then == null || now == null ? null : then - now;
}
