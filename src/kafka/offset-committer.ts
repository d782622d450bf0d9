import type { TopicPartitionOffsetAndMetadata } from 'kafkajs';

/**
 * Commits a consumer's applied offsets in the background: at most `delayMs` after a chunk was
 * applied, one commit in flight, each carrying the newest offset of every partition applied since.
 *
 * Why not kafkajs's commit after each batch: a commit is a round trip to the group coordinator
 * (on Kafka 4 it lingers to batch its writes: docs/benchmarks.md#what-the-measurements-decided), and kafkajs awaits it
 * before the batch counts as done and before its next fetch, so every result waited for it. What a
 * crash loses is at most `delayMs` of commits: those results are applied again, which is
 * idempotent (PostgreSQL keeps each (matchId, playerId) once, Redis takes ZADD GT).
 */
export function createOffsetCommitter(opts: {
  topic: string;
  delayMs: number;
  commit(offsets: TopicPartitionOffsetAndMetadata[]): Promise<void>;
  onError(err: unknown): void;
}) {
  /** partition → the next offset to read (the last applied + 1). */
  const pending = new Map<number, bigint>();
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;

  function schedule(): void {
    timer ??= setTimeout(() => {
      timer = undefined;
      void commitPending();
    }, opts.delayMs).unref();
  }

  /** Commits what is pending, after any commit in flight. */
  async function commitPending(): Promise<void> {
    while (inFlight) await inFlight;
    if (pending.size === 0) return;
    const taken = new Map(pending);
    pending.clear();
    const offsets = [...taken].map(([partition, next]) => ({ topic: opts.topic, partition, offset: String(next) }));
    inFlight = opts.commit(offsets).then(
      () => {},
      (err: unknown) => {
        opts.onError(err);
        // Again later, unless a newer offset of the partition came meanwhile.
        for (const [partition, next] of taken) if (!pending.has(partition)) pending.set(partition, next);
        schedule();
      },
    );
    try {
      await inFlight;
    } finally {
      inFlight = undefined;
    }
  }

  return {
    /** `offset` of `partition` and everything before it are applied. */
    applied(partition: number, offset: string): void {
      const next = BigInt(offset) + 1n;
      if ((pending.get(partition) ?? -1n) < next) pending.set(partition, next);
      schedule();
    },
    /** Keeps only these partitions' offsets (the group's new assignment): the others are not ours to commit. */
    retain(partitions: ReadonlySet<number>): void {
      for (const p of pending.keys()) if (!partitions.has(p)) pending.delete(p);
    },
    /** Commits what is pending now (on stop). */
    async flush(): Promise<void> {
      clearTimeout(timer);
      timer = undefined;
      await commitPending();
    },
  };
}
