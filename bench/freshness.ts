// Freshness measured from outside ladder, for benches that load ingest at a set rate (bench:burst,
// bench:rank-history). This process produces match results at the rate `dueBy` gives; a message
// counts as visible when the ingest group's committed offset passes it (ladder commits only after
// PostgreSQL and Redis hold the chunk), from the moment it was handed to the producer. Offsets
// are polled every 100 ms; each result is filed under the phase it was produced in.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Partitioners, type Kafka } from 'kafkajs';
import type { MatchResultMessage } from '../src/domain/result-message.js';
import { prng } from './generate.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Starts `count` ladder processes (src/main.ts) with `env` (LADDER_ROLES=ingest, KAFKA_GROUP_ID =
 * KAFKA_TOPIC = `topic`), pushing each into `children` at once (the caller kills them), and waits
 * until the group is Stable with all of them in it.
 */
export async function startIngestProcesses(
  kafka: Kafka,
  env: Record<string, string>,
  count: number,
  children: ChildProcess[],
): Promise<void> {
  for (let i = 0; i < count; i++)
    children.push(
      spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        cwd: root,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'ignore', 'inherit'],
      }),
    );
  const admin = kafka.admin();
  await admin.connect();
  try {
    for (;;) {
      const described = await admin.describeGroups([env.KAFKA_GROUP_ID!]);
      if (described.groups[0]?.state === 'Stable' && described.groups[0].members.length === count) return;
      await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    await admin.disconnect();
  }
}

/** [freshness ms, results] of one produce request's messages on one partition. */
export type Sample = [ms: number, count: number];

export interface LoadOptions {
  kafka: Kafka;
  /** The topic ladder's ingest consumes; its consumer group has the same name. */
  topic: string;
  partitions: number;
  seasonId: number;
  /** Player ids 1..players, uniformly; points 0..60. */
  players: number;
  /** Results due by `ms` since the start. */
  dueBy(ms: number): number;
  /** The phase a result produced at `ms` since the start belongs to. */
  phaseAt(ms: number): string;
}

/**
 * Produces at `dueBy`'s rate until stopped, polling the group's offsets. `poll` returns the lag
 * (results produced, not yet visible) and files every visible result's freshness under its phase.
 */
export async function startLoad(o: LoadOptions) {
  const admin = o.kafka.admin();
  await admin.connect();
  // Configured as ladder's producer (kafka/producer.ts), used raw for the offsets it answers.
  const producer = o.kafka.producer({
    idempotent: true,
    maxInFlightRequests: 5,
    createPartitioner: Partitioners.DefaultPartitioner,
    retry: { retries: Number.MAX_SAFE_INTEGER },
  });
  await producer.connect();
  // The same partitioner, to know how many messages of a request went to each partition.
  const partitionOf = Partitioners.DefaultPartitioner();
  const partitionMetadata = Array.from({ length: o.partitions }, (_, i) => ({
    partitionId: i,
    leader: 0,
    replicas: [0],
    isr: [0],
    partitionErrorCode: 0,
  }));
  const rand = prng(7);
  const pending: Array<{ partition: number; endOffset: bigint; count: number; at: number; phase: string }> = [];
  const samples = new Map<string, Sample[]>();
  let produced = 0;
  let done = false;
  const t0 = performance.now();

  const producing = (async () => {
    while (!done) {
      const now = performance.now() - t0;
      const due = Math.min(o.dueBy(now) - produced, 5_000);
      if (due <= 0) {
        await new Promise((r) => setTimeout(r, 5));
        continue;
      }
      const endedAt = new Date(Date.now() - 1000).toISOString();
      const messages: MatchResultMessage[] = Array.from({ length: due }, () => ({
        v: 1,
        matchId: randomUUID(),
        seasonId: o.seasonId,
        endedAt,
        playerId: String(1 + Math.floor(rand() * o.players)),
        points: Math.floor(rand() * 61),
      }));
      const records = messages.map((m) => ({ key: m.playerId, value: JSON.stringify(m) }));
      const counts = new Map<number, number>();
      for (const r of records) {
        const p = partitionOf({ topic: o.topic, partitionMetadata, message: r });
        counts.set(p, (counts.get(p) ?? 0) + 1);
      }
      const at = Date.now();
      const meta = await producer.send({ topic: o.topic, acks: -1, messages: records });
      for (const m of meta) {
        const count = counts.get(m.partition) ?? 0;
        pending.push({
          partition: m.partition,
          endOffset: BigInt(m.baseOffset ?? '0') + BigInt(count),
          count,
          at,
          phase: o.phaseAt(now),
        });
      }
      produced += due;
    }
  })();

  return {
    /** Milliseconds since the load started. */
    elapsed: () => performance.now() - t0,
    produced: () => produced,
    samples,
    /** Waits 100 ms, reads the committed offsets, files what became visible; returns the lag. */
    async poll(): Promise<number> {
      await new Promise((r) => setTimeout(r, 100));
      const [committed] = await admin.fetchOffsets({ groupId: o.topic, topics: [o.topic] });
      const wall = Date.now();
      const offsets = new Map(
        (committed?.partitions ?? []).map((p) => [p.partition, BigInt(Math.max(0, Number(p.offset)))]),
      );
      let lag = 0;
      for (let i = pending.length - 1; i >= 0; i--) {
        const p = pending[i]!;
        if ((offsets.get(p.partition) ?? 0n) >= p.endOffset) {
          const list = samples.get(p.phase) ?? [];
          samples.set(p.phase, list);
          list.push([wall - p.at, p.count]);
          pending.splice(i, 1);
        } else {
          lag += p.count;
        }
      }
      return lag;
    },
    async stop(): Promise<void> {
      done = true;
      await producing;
      await producer.disconnect();
      await admin.disconnect();
    },
  };
}

/** The freshness under which a share `q` of the samples' results became visible. */
export function quantile(list: readonly Sample[], q: number): number {
  const sorted = [...list].sort((a, b) => a[0] - b[0]);
  const total = sorted.reduce((s, [, n]) => s + n, 0);
  let seen = 0;
  for (const [ms, n] of sorted) if ((seen += n) >= q * total) return ms;
  return Number.NaN;
}

/** One table row per phase: results, freshness p50, p99, max. */
export function printFreshness(samples: Map<string, Sample[]>, phases: readonly string[], title: string): void {
  console.log(`${title.padEnd(27)} | results | freshness p50 ms | p99 ms | max ms`);
  for (const phase of phases) {
    const list = samples.get(phase) ?? [];
    const n = list.reduce((s, [, c]) => s + c, 0);
    console.log(
      `${phase.padEnd(27)} | ${String(n).padStart(7)} | ${quantile(list, 0.5).toFixed(0).padStart(16)} | ${quantile(list, 0.99).toFixed(0).padStart(6)} | ${quantile(list, 1).toFixed(0).padStart(6)}`,
    );
  }
}
