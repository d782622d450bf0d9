// The ingest consumer group's progress as the brokers see it (the console's ingest page,
// docs/operations.md#console): per partition of the results topic, the group's committed offset
// against the high watermark, and the DLQ's size. Cluster-wide, whichever process asks.
import type { Admin } from 'kafkajs';

export interface PartitionLag {
  partition: number;
  /** The group's committed offset (the next message it will read); null before its first commit. */
  committed: string | null;
  /** The offset the next message written will get. */
  high: string;
  /** Messages written and not yet consumed: high − committed (− low before a first commit). */
  lag: number;
}

export interface IngestLag {
  /** When it was read (ms since the epoch). */
  at: number;
  partitions: PartitionLag[];
  /** Summed over the partitions. */
  lag: number;
  /** Messages the group has consumed on every partition together: a counter whose rate is results/s. */
  consumed: number;
  dlq: { partitions: Array<{ partition: number; low: string; high: string }>; size: number };
}

/** Offsets as kafkajs gives them (strings) to the lag of each partition; pure, for tests. */
export function lagOf(
  committed: ReadonlyArray<{ partition: number; offset: string }>,
  ends: ReadonlyArray<{ partition: number; low: string; high: string }>,
): { partitions: PartitionLag[]; lag: number; consumed: number } {
  const commits = new Map(committed.map((c) => [c.partition, c.offset]));
  let lag = 0;
  let consumed = 0;
  const partitions = [...ends]
    .sort((a, b) => a.partition - b.partition)
    .map((e) => {
      const c = commits.get(e.partition);
      const at = c === undefined || Number(c) < 0 ? null : c;
      // Without a commit the group starts at the oldest message kept (fromBeginning).
      const position = Math.max(Number(at ?? e.low), Number(e.low));
      const l = Math.max(0, Number(e.high) - position);
      lag += l;
      consumed += position;
      return { partition: e.partition, committed: at, high: e.high, lag: l };
    });
  return { partitions, lag, consumed };
}

/** Messages consumed per second between two readings; null without an earlier one within 10 minutes. */
export function ratePerSecond(before: IngestLag | undefined, after: IngestLag): number | null {
  if (!before) return null;
  const seconds = (after.at - before.at) / 1000;
  if (seconds <= 0 || seconds > 600) return null;
  return Math.max(0, after.consumed - before.consumed) / seconds;
}

/** Reads the group's lag on `topic` and the size of `dlqTopic` with a connected admin client. */
export async function readIngestLag(
  admin: Admin,
  t: { topic: string; dlqTopic: string; groupId: string },
  now: () => number = Date.now,
): Promise<IngestLag> {
  const [groups, ends, dlqEnds] = await Promise.all([
    admin.fetchOffsets({ groupId: t.groupId, topics: [t.topic] }),
    admin.fetchTopicOffsets(t.topic),
    admin.fetchTopicOffsets(t.dlqTopic),
  ]);
  const committed = groups.find((g) => g.topic === t.topic)?.partitions ?? [];
  const dlq = dlqEnds
    .map(({ partition, low, high }) => ({ partition, low, high }))
    .sort((a, b) => a.partition - b.partition);
  return {
    at: now(),
    ...lagOf(committed, ends),
    dlq: { partitions: dlq, size: dlq.reduce((n, p) => n + Number(p.high) - Number(p.low), 0) },
  };
}
