// Scenario c: ladder end to end through Kafka. All messages are produced FIRST, then the real
// ingest consumer starts, so the consume figure measures how fast ladder drains a backlog (the
// burst case of docs/design.md#data-flow: Kafka buffers, the consumer catches up), not how fast
// we can produce.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Admin, Kafka } from 'kafkajs';
import { buildApp } from '../src/app/app.js';
import type { Config } from '../src/config.js';
import { createResultProducer } from '../src/kafka/producer.js';
import type { MatchResultMessage } from '../src/domain/result-message.js';
import type { Logger } from '../src/logger.js';
import { cpuDelta, sampleCpu, sampleTree, treeSeconds, type CpuTargets, type CpuUse, type TreeSample } from './cpu.js';

const PRODUCE_BATCH = 2000;
const PRODUCE_IN_FLIGHT = 4; // concurrent send() calls; the producer allows 5 in flight (idempotent)

/** Produces with ladder's own producer (idempotent, acks=all, key = playerId); returns seconds. */
export async function produceAll(
  kafka: Kafka,
  topic: string,
  messages: readonly MatchResultMessage[],
): Promise<number> {
  const producer = createResultProducer(kafka, topic);
  await producer.start();
  try {
    const t0 = performance.now();
    // A few batches in flight, as several API instances would produce at once; one at a time
    // would measure the round trip of acks=all rather than the broker.
    let next = 0;
    const worker = async () => {
      while (next < messages.length) {
        const from = next;
        next += PRODUCE_BATCH;
        await producer.send(messages.slice(from, from + PRODUCE_BATCH));
      }
    };
    await Promise.all(Array.from({ length: PRODUCE_IN_FLIGHT }, worker));
    return (performance.now() - t0) / 1000;
  } finally {
    await producer.stop();
  }
}

/** Committed offsets of the group against the log end offsets, summed over partitions. */
async function progress(admin: Admin, groupId: string, topic: string): Promise<{ committed: number; end: number }> {
  const [ends, groups] = await Promise.all([
    admin.fetchTopicOffsets(topic),
    admin.fetchOffsets({ groupId, topics: [topic] }),
  ]);
  const committed = new Map(groups[0]?.partitions.map((p) => [p.partition, Math.max(0, Number(p.offset))]) ?? []);
  let c = 0;
  let e = 0;
  for (const p of ends) {
    e += Number(p.high);
    c += Math.min(committed.get(p.partition) ?? 0, Number(p.high));
  }
  return { committed: c, end: e };
}

export interface ConsumeReport {
  /** From before app.start() until the group had committed every offset. */
  seconds: number;
  /** When the first commit was seen: group join and first fetch, paid once per start. */
  firstCommitSeconds: number;
  /** Messages already committed at firstCommitSeconds. */
  firstCommitted: number;
  cpu: CpuUse;
}

/**
 * Starts ladder's ingest role (buildApp, as main.ts would) and polls the group's committed offsets
 * every 50 ms until they reach the log end. The poll adds at most 50 ms to the figure.
 */
export async function consumeAll(
  kafka: Kafka,
  config: Config,
  logger: Logger,
  cpuTargets: CpuTargets,
  timeoutMs: number,
): Promise<ConsumeReport> {
  const admin = kafka.admin();
  await admin.connect();
  const app = buildApp(config, { roles: ['ingest'], logger });
  try {
    const cpu0 = sampleCpu(cpuTargets);
    const t0 = performance.now();
    await app.start();
    let first: { at: number; committed: number } | undefined;
    for (;;) {
      const { committed, end } = await progress(admin, config.kafka.groupId, config.kafka.topic);
      const at = (performance.now() - t0) / 1000;
      if (!first && committed > 0) first = { at, committed };
      if (committed >= end) {
        // Sampled before app.stop(): the consumer's PostgreSQL backends must still be alive.
        const cpu = cpuDelta(cpu0, sampleCpu(cpuTargets));
        return { seconds: at, firstCommitSeconds: first?.at ?? at, firstCommitted: first?.committed ?? end, cpu };
      }
      if (at * 1000 > timeoutMs)
        throw new Error(`ingest did not catch up in ${timeoutMs} ms (${committed}/${end} committed)`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await app.stop();
    await admin.disconnect();
  }
}

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * As consumeAll, with `processes` separate ingest processes in one consumer group (ladder's
 * src/main.ts with LADDER_ROLES=ingest, as operators would scale it): from their spawn until the
 * group committed every offset. "node" CPU is theirs (this process only polls).
 */
export async function consumeAllProcesses(
  kafka: Kafka,
  config: Config,
  env: Record<string, string>,
  processes: number,
  cpuTargets: CpuTargets,
  timeoutMs: number,
): Promise<ConsumeReport> {
  const admin = kafka.admin();
  await admin.connect();
  const children: ChildProcess[] = [];
  try {
    const cpu0 = sampleCpu(cpuTargets);
    const trees0: TreeSample[] = [];
    const t0 = performance.now();
    for (let i = 0; i < processes; i++) {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        cwd: root,
        env: { ...process.env, ...env, LADDER_ROLES: 'ingest', LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      children.push(child);
      trees0.push(sampleTree(child.pid!));
    }
    let first: { at: number; committed: number } | undefined;
    for (;;) {
      const { committed, end } = await progress(admin, config.kafka.groupId, config.kafka.topic);
      const at = (performance.now() - t0) / 1000;
      if (!first && committed > 0) first = { at, committed };
      if (committed >= end) {
        const cpu = cpuDelta(cpu0, sampleCpu(cpuTargets));
        cpu.node = children.reduce((sum, c, i) => sum + treeSeconds(trees0[i]!, sampleTree(c.pid!)), 0);
        return { seconds: at, firstCommitSeconds: first?.at ?? at, firstCommitted: first?.committed ?? end, cpu };
      }
      if (children.some((c) => c.exitCode !== null)) throw new Error('an ingest process exited');
      if (at * 1000 > timeoutMs)
        throw new Error(`ingest did not catch up in ${timeoutMs} ms (${committed}/${end} committed)`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await Promise.all(
      children.map(
        (c) =>
          new Promise((resolve) => {
            if (c.exitCode !== null) {
              resolve(undefined);
              return;
            }
            c.once('exit', resolve);
            c.kill('SIGTERM');
          }),
      ),
    );
    await admin.disconnect();
  }
}

/** Deletes the bench topics and consumer group; best effort, reported rather than thrown. */
export async function deleteKafkaState(kafka: Kafka, topics: string[], groupId: string): Promise<string[]> {
  const problems: string[] = [];
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const ours = topics.filter((t) => existing.has(t));
    if (ours.length > 0)
      await admin.deleteTopics({ topics: ours }).catch((e: Error) => problems.push(`deleteTopics: ${e.message}`));
    await admin.deleteGroups([groupId]).catch((e: Error & { groups?: Array<{ error?: { type?: string } }> }) => {
      // A group that never committed does not exist: nothing to delete.
      if (!e.groups?.every((g) => g.error?.type === 'GROUP_ID_NOT_FOUND')) problems.push(`deleteGroups: ${e.message}`);
    });
  } finally {
    await admin.disconnect();
  }
  return problems;
}
