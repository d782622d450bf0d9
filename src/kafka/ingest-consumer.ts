import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { AcceptedResult } from '../domain/board-deltas.js';
import { badInput, DomainError, isDomainError, seasonNotFound } from '../domain/errors.js';
import type { Season } from '../domain/season.js';
import { checkIngestable, parseMatchResultMessage } from '../domain/submission.js';
import type { Logger } from '../logger.js';
import type { ApplyReport } from '../service/apply-results.js';
import { coalesce } from '../service/coalesce.js';
import { createOffsetCommitter } from './offset-committer.js';
import { createIdempotentProducer } from './producer.js';

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
  /** Applies good results durably (PostgreSQL, then Redis). */
  apply(results: AcceptedResult[], seasonOf: (id: number) => Season): Promise<ApplyReport>;
  logger: Logger;
  /** Largest number of messages applied in one PostgreSQL transaction. */
  chunkSize?: number;
  /** After each apply (the chunks of several partitions at once). */
  onApplied?(report: ApplyReport & { lagMs: number }): void;
  onPoison?(code: string): void;
}

interface Poison {
  message: KafkaMessage;
  error: DomainError;
}

/** A classified chunk waiting to be applied with the others (applyTogether). */
interface Applying {
  good: AcceptedResult[];
  seasons: ReadonlyMap<number, { season: Season }>;
  /** CreateTime of the chunk's last message (the lag metric). */
  newest: number;
  resolve(): void;
  reject(err: unknown): void;
}

const NOBODY: ReadonlySet<string> = new Set();
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
  const state = { joined: false, crashed: false, lastFetchAt: 0, retryingSince: 0 };

  const offsets = createOffsetCommitter({
    topic: opts.topic,
    delayMs: COMMIT_DELAY_MS,
    commit: (o) => consumer.commitOffsets(o),
    onError: (err) => log.warn({ err: (err as Error).message }, 'offset commit failed; retrying'),
  });

  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    state.joined = true;
    offsets.retain(new Set(payload.memberAssignment[opts.topic] ?? []));
  });
  consumer.on(consumer.events.FETCH, () => {
    state.lastFetchAt = Date.now();
  });
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    // A crash kafkajs restarts from (a broker gone, a retriable error) is an outage, reported in
    // one line; one it does not restart from is a failure, with its stack.
    if (payload.restart) log.warn({ err: payload.error.message }, 'consumer crashed; kafkajs restarts it');
    else log.error({ err: payload.error }, 'consumer crashed for good');
    // kafkajs restarts by itself on retriable errors; otherwise readiness fails and the
    // supervisor restarts the process.
    if (!payload.restart) state.crashed = true;
  });

  async function classify(messages: KafkaMessage[], partition: number) {
    const good: AcceptedResult[] = [];
    const poison: Poison[] = [];
    // Per chunk: each season and its blocked players are looked up once, not once per message.
    const seasons = new Map<number, { season: Season; blocked: ReadonlySet<string> }>();
    for (const message of messages) {
      try {
        let json: unknown;
        try {
          json = JSON.parse(message.value?.toString('utf8') ?? '');
        } catch {
          throw badInput('value', 'message value is not JSON');
        }
        const msg = parseMatchResultMessage(json);
        let known = seasons.get(msg.seasonId);
        if (!known) {
          const season = await opts.seasonById(msg.seasonId);
          if (!season) throw seasonNotFound(msg.seasonId);
          known = { season, blocked: (await opts.blockedIn?.(season.id)) ?? NOBODY };
          seasons.set(season.id, known);
        }
        const endedAt = checkIngestable(msg, known.season, known.blocked);
        // A literal, not a spread: this runs once per message.
        good.push({
          matchId: msg.matchId,
          playerId: msg.playerId,
          seasonId: msg.seasonId,
          points: msg.points,
          endedAt,
          partition,
          offset: message.offset,
        });
      } catch (err) {
        if (!isDomainError(err)) throw err; // infrastructure (season lookup): retry the chunk
        poison.push({ message, error: err });
      }
    }
    return { good, poison, seasons };
  }

  function toDlq(poison: Poison[], topic: string, partition: number) {
    return dlq.send({
      topic: opts.dlqTopic,
      messages: poison.map(({ message, error }) => ({
        key: message.key,
        value: message.value,
        headers: {
          'x-error-code': error.code,
          'x-error-field': error.field ?? '',
          'x-error-message': error.message,
          'x-source-topic': topic,
          'x-source-partition': String(partition),
          'x-source-offset': message.offset,
        },
      })),
    });
  }

  /** Runs `step` until it succeeds; false when the consumer stops or loses the partition first. */
  async function untilDone(step: () => Promise<void>, p: EachBatchPayload): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      if (!p.isRunning() || p.isStale()) return false;
      try {
        await step();
        state.retryingSince = 0;
        return true;
      } catch (err) {
        state.retryingSince ||= Date.now();
        log.warn({ err, attempt, partition: p.batch.partition }, 'ingest step failed; retrying');
        await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** attempt, 5_000)));
        // Keeps the group membership through a long outage (kafkajs #375); throws on rebalance,
        // which hands the partition over without resolving anything.
        await p.heartbeat();
      }
    }
  }

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
      try {
        const report = await opts.apply(
          chunks.flatMap((c) => c.good),
          seasonOf,
        );
        if (report.unencodable.length > 0) {
          log.error(
            { standings: report.unencodable.length },
            'standings too large for the season score split; kept in PostgreSQL only',
          );
        }
        opts.onApplied?.({ ...report, lagMs: Date.now() - Math.max(...chunks.map((c) => c.newest)) });
        for (const c of chunks) c.resolve();
      } catch (err) {
        for (const c of chunks) c.reject(err);
      }
    },
    (c) => c.good.length,
    chunkSize,
    // At full speed each chunk is full and applied alone, and their PostgreSQL and Redis waits overlap.
    opts.appliesInFlight,
  );

  async function eachBatch(p: EachBatchPayload): Promise<void> {
    const { batch } = p;
    for (let i = 0; i < batch.messages.length; i += chunkSize) {
      const chunk = batch.messages.slice(i, i + chunkSize);
      let classified!: Awaited<ReturnType<typeof classify>>;
      if (
        !(await untilDone(async () => {
          classified = await classify(chunk, batch.partition);
        }, p))
      )
        return;
      const { good, poison, seasons } = classified;
      if (poison.length > 0) {
        for (const { message, error } of poison) {
          log.warn(
            { partition: batch.partition, offset: message.offset, code: error.code, field: error.field },
            'poison message to DLQ',
          );
          opts.onPoison?.(error.code);
        }
        if (!(await untilDone(() => toDlq(poison, batch.topic, batch.partition).then(() => {}), p))) return;
      }
      const newest = Number(chunk[chunk.length - 1]!.timestamp);
      if (
        !(await untilDone(
          () => new Promise<void>((resolve, reject) => applyTogether({ good, seasons, newest, resolve, reject })),
          p,
        ))
      )
        return;
      p.resolveOffset(chunk[chunk.length - 1]!.offset);
      offsets.applied(batch.partition, chunk[chunk.length - 1]!.offset);
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
    /** Ready when in the group, fetching recently, and not stuck retrying for long. */
    readiness(): { ok: boolean; reason?: string } {
      const now = Date.now();
      if (state.crashed) return { ok: false, reason: 'consumer crashed' };
      if (!state.joined) return { ok: false, reason: 'not in the consumer group yet' };
      if (now - state.lastFetchAt > 30_000) return { ok: false, reason: 'no fetch for 30 s' };
      if (state.retryingSince && now - state.retryingSince > 30_000) return { ok: false, reason: 'retrying for 30 s' };
      return { ok: true };
    },
  };
}

export type IngestConsumer = ReturnType<typeof createIngestConsumer>;
