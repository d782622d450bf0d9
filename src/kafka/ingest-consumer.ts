import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { AcceptedResult } from '../domain/board-deltas.js';
import type { Season } from '../domain/season.js';
import type { Logger } from '../logger.js';
import type { ApplyReport } from '../service/apply-results.js';
import { coalesce } from '../service/coalesce.js';
import { badInput } from '../domain/errors.js';
import type { PlayerScopes } from '../domain/scopes.js';
import { classifyChunk, classifyScopes, dlqRecords, phasesOf, type Classified, type Poison } from './classify-chunk.js';
import { createIngestHealth } from './ingest-health.js';
import { createOffsetCommitter } from './offset-committer.js';
import { createIdempotentProducer, isScopesMessage } from './producer.js';
import { retryInPlace } from './retry-in-place.js';
import { applySpan, resultSpans } from './ingest-spans.js';
import { contextOfHeaders } from '../tracing.js';
import { context } from '@opentelemetry/api';

export interface IngestOptions {
  kafka: Kafka;
  topic: string;
  dlqTopic: string;
  groupId: string;
  /** The topic's partitions: a process consumes every one it holds at once. */
  partitions: number;
  /** Chunks applied side by side at most; chunks ready meanwhile are applied together after. */
  appliesInFlight: number;
  sessionTimeoutMs: number;
  /** Season lookup (cached by the caller); rejects when PostgreSQL is unreachable. */
  seasonById(id: number): Promise<Season | undefined>;
  /** Players barred from a season (cheaters): their results go to the DLQ. Cached by the caller. */
  blockedIn?(seasonId: number): Promise<ReadonlySet<string>>;
  /** Applies changes of players' scopes (service/apply-scopes.ts); absent: they go to the DLQ. */
  applyScopes?(changes: Array<{ playerId: string; scopes: PlayerScopes }>): Promise<unknown>;
  /** Applies good results durably (PostgreSQL, then Redis). */
  apply(results: AcceptedResult[], seasonOf: (id: number) => Season): Promise<ApplyReport>;
  logger: Logger;
  /** Largest number of messages applied in one PostgreSQL transaction. */
  chunkSize?: number;
  /** After each apply (the chunks of several partitions at once). */
  onApplied?(report: ApplyReport & { lagMs: number }): void;
  onPoison?(code: string): void;
}

/** A classified chunk waiting to be applied with the others (applyTogether). */
interface Applying {
  good: AcceptedResult[];
  /** The messages `good` came from: their headers carry each result's trace (ingest-spans.ts). */
  messages: readonly KafkaMessage[];
  seasons: ReadonlyMap<number, { season: Season }>;
  /** CreateTime of the chunk's last message (the lag metric). */
  newest: number;
  resolve(): void;
  reject(err: unknown): void;
}

const noScopes = badInput(undefined, 'this consumer applies no scope changes');

/** How soon after a chunk is applied its offset is committed (offset-committer.ts). */
const COMMIT_DELAY_MS = 200;

/**
 * The ingest consumer of docs/design.md#data-flow: per chunk of a batch, validate (poison → DLQ),
 * apply to PostgreSQL then Redis, and only then resolve and commit the offsets. Infrastructure failures
 * are retried in place (heartbeating) and never reach the DLQ; stopping abandons the chunk
 * unresolved so it is redelivered, which is safe because applying is idempotent.
 */
export function createIngestConsumer(opts: IngestOptions) {
  const log = opts.logger.child({ component: 'ingest' });
  const chunkSize = opts.chunkSize ?? 2000;
  const consumer: Consumer = opts.kafka.consumer({
    groupId: opts.groupId,
    sessionTimeout: opts.sessionTimeoutMs,
    heartbeatInterval: Math.floor(opts.sessionTimeoutMs / 10),
    maxWaitTimeInMs: 100, // a result should show within a second of the match ending
    allowAutoTopicCreation: false,
  });
  const dlq = createIdempotentProducer(opts.kafka, { maxInFlightRequests: 1 });
  const health = createIngestHealth();

  const offsets = createOffsetCommitter({
    topic: opts.topic,
    delayMs: COMMIT_DELAY_MS,
    commit: (o) => consumer.commitOffsets(o),
    onError: (err) => log.warn({ err: (err as Error).message }, 'offset commit failed; retrying'),
  });

  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    health.joined();
    offsets.retain(new Set(payload.memberAssignment[opts.topic] ?? []));
  });
  consumer.on(consumer.events.FETCH, () => health.fetched());
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    // A crash kafkajs restarts from (a broker gone, a retriable error) is an outage, reported in
    // one line; one it does not restart from is a failure, with its stack.
    if (payload.restart) log.warn({ err: payload.error.message }, 'consumer crashed; kafkajs restarts it');
    else log.error({ err: payload.error }, 'consumer crashed for good');
    // kafkajs restarts by itself on retriable errors; otherwise readiness fails and the
    // supervisor restarts the process.
    if (!payload.restart) health.crashed();
  });

  /** Runs `step` until it succeeds; false when the consumer stops or loses the partition first. */
  const untilDone = (step: () => Promise<unknown>, p: EachBatchPayload): Promise<boolean> =>
    retryInPlace(step, p, {
      succeeded: health.succeeded,
      failed(err, attempt) {
        health.failed();
        log.warn({ err, attempt, partition: p.batch.partition }, 'ingest step failed; retrying');
      },
    });

  /**
   * The chunks of the partitions consumed at once are applied together: one PostgreSQL statement
   * and one Redis call per board for all of them, not one per partition. At a low rate each chunk
   * holds a few results, and their statements, not the results, were the cost. Results of one
   * player are on one partition, and applying is idempotent in any grouping.
   */
  const applyTogether = coalesce<Applying>(
    async (chunks) => {
      const seasonOf = (id: number): Season => {
        for (const c of chunks) {
          const known = c.seasons.get(id);
          if (known) return known.season;
        }
        throw new Error(`season ${id} was not looked up`);
      };
      // One span for the apply, linked to each result's trace; its PostgreSQL and Redis writes
      // are its children. Per-result spans only when it is recorded (an SDK is on).
      const count = chunks.reduce((n, c) => n + c.good.length, 0);
      const { span, active } = applySpan(count);
      const results = span.isRecording() ? resultSpans(span, chunks, log) : undefined;
      try {
        const report = await context.with(active, async () => {
          const r = await opts.apply(
            chunks.flatMap((c) => c.good),
            seasonOf,
          );
          if (r.unencodable.length > 0) {
            log.error(
              { standings: r.unencodable.length },
              'standings too large for the season score split; kept in PostgreSQL only',
            );
          }
          log.debug({ results: count, inserted: r.inserted, changed: r.changed }, 'chunk applied');
          return r;
        });
        results?.end();
        span.end();
        opts.onApplied?.({ ...report, lagMs: Date.now() - Math.max(...chunks.map((c) => c.newest)) });
        for (const c of chunks) c.resolve();
      } catch (err) {
        results?.end(err);
        span.end();
        for (const c of chunks) c.reject(err);
      }
    },
    (c) => c.good.length,
    chunkSize,
    // At full speed each chunk is full and applied alone, and their PostgreSQL and Redis waits overlap.
    opts.appliesInFlight,
  );

  /** Sends poison to the DLQ; false when the consumer stopped first. */
  async function deadLetter(poison: readonly Poison[], p: EachBatchPayload): Promise<boolean> {
    if (poison.length === 0) return true;
    for (const { message, error } of poison) {
      // Under the trace the message carries, if any (tracing.ts).
      context.with(contextOfHeaders(message.headers), () =>
        log.warn(
          { partition: p.batch.partition, offset: message.offset, code: error.code, field: error.field },
          'poison message to DLQ',
        ),
      );
      opts.onPoison?.(error.code);
    }
    return untilDone(() => dlq.send({ topic: opts.dlqTopic, messages: dlqRecords(poison, p.batch) }), p);
  }

  /** Classifies and applies one phase's results; false when the consumer stopped first. */
  async function applyResultsOf(messages: KafkaMessage[], newest: number, p: EachBatchPayload): Promise<boolean> {
    if (messages.length === 0) return true;
    let classified!: Classified;
    const classify = async () => (classified = await classifyChunk(messages, p.batch.partition, opts));
    if (!(await untilDone(classify, p))) return false;
    const { good, poison, seasons } = classified;
    if (!(await deadLetter(poison, p))) return false;
    const apply = () =>
      new Promise<void>((resolve, reject) => applyTogether({ good, messages, seasons, newest, resolve, reject }));
    return untilDone(apply, p);
  }

  /** Applies one phase's scope changes (service/apply-scopes.ts); false when the consumer stopped first. */
  async function applyScopesOf(messages: KafkaMessage[], p: EachBatchPayload): Promise<boolean> {
    if (messages.length === 0) return true;
    if (!opts.applyScopes)
      return deadLetter(
        messages.map((message) => ({ message, error: noScopes })),
        p,
      );
    const { changes, poison } = classifyScopes(messages);
    if (!(await deadLetter(poison, p))) return false;
    return changes.length === 0 || untilDone(() => opts.applyScopes!(changes), p);
  }

  async function eachBatch(p: EachBatchPayload): Promise<void> {
    const { batch } = p;
    for (let i = 0; i < batch.messages.length; i += chunkSize) {
      const chunk = batch.messages.slice(i, i + chunkSize);
      const last = chunk[chunk.length - 1]!;
      const newest = Number(last.timestamp);
      // A player's scope changes apply between exactly the results they came between.
      for (const phase of phasesOf(chunk, isScopesMessage)) {
        if (!(await applyResultsOf(phase.results, newest, p))) return;
        if (!(await applyScopesOf(phase.scopes, p))) return;
      }
      p.resolveOffset(last.offset);
      offsets.applied(batch.partition, last.offset);
      await p.heartbeat();
    }
  }

  return {
    async start(): Promise<void> {
      await dlq.connect();
      await consumer.connect();
      await consumer.subscribe({ topic: opts.topic, fromBeginning: true });
      await consumer.run({
        eachBatch,
        eachBatchAutoResolve: false,
        autoCommit: false, // offsets (above) commits what was applied, off the fetch loop
        // Every partition at once: the batches of one fetch reach applyTogether in one turn and
        // are applied as one, where a wave of partitions each would cost an apply per wave, and
        // kafkajs fetches again only when all of them are done.
        partitionsConsumedConcurrently: opts.partitions,
      });
    },
    /**
     * Commits what was applied, stops fetching, lets the running chunk finish or abandons it
     * unresolved, leaves. A chunk that finishes while leaving is applied again by the next owner.
     */
    async stop(): Promise<void> {
      await offsets.flush();
      await consumer.disconnect();
      await dlq.disconnect();
    },
    /** Ready when in the group, fetching recently, and not stuck retrying for long (ingest-health.ts). */
    readiness: health.readiness,
  };
}
