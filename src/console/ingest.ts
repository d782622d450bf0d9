// The console's ingest page (docs/operations.md#console): consumer lag per partition, results/s
// and the DLQ's size; the dead letters, a page at a time; and their replay to the results topic.
// Exactly once: a letter is claimed in dlq_replays in the transaction that waits for Kafka's
// acknowledgement (postgres/dlq-replays.ts), so a claimed letter is never sent again, and a result
// sent twice anyway is stored once (match id + player id). Scope changes are never replayed: each
// sets a player's scopes as they were then, and would undo any later change. Every replay is
// audited under the session's key.
import { badInput } from '../domain/errors.js';
import type { DeadLetter, IngestInspector } from '../kafka/dead-letters.js';
import { ratePerSecond, type IngestLag } from '../kafka/ingest-lag.js';
import type { DlqReplays } from '../postgres/dlq-replays.js';
import { audited, type AuditLog, type AuditRecord } from '../service/audit-trail.js';
import type { ConsoleRoute } from './routes.js';
import type { ConsoleSession } from './sessions.js';

export interface IngestConsoleDeps {
  kafka: IngestInspector;
  replays: DlqReplays;
  audit: Pick<AuditLog, 'record'>;
  onRecordFailed(err: unknown, action: string): void;
}

const PAGE = 50;
/** Most letters one "replay all" reads, per DLQ partition; the rest wait for the next one. */
const ALL_AT_ONCE = 5_000;

/** What a dead letter carries, read leniently: it may be anything a producer wrote. */
function contentOf(value: string) {
  let o: Record<string, unknown> = {};
  try {
    const v = JSON.parse(value) as unknown;
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) o = v as Record<string, unknown>;
  } catch {
    // unreadable: shown as it came
  }
  const text = (k: string) => (typeof o[k] === 'string' || typeof o[k] === 'number' ? String(o[k]) : null);
  return {
    kind: o['kind'] === 'scopes' ? 'scopes' : o['matchId'] !== undefined ? 'result' : 'unreadable',
    matchId: text('matchId'),
    playerId: text('playerId'),
    seasonId: typeof o['seasonId'] === 'number' ? o['seasonId'] : null,
    points: typeof o['points'] === 'number' ? o['points'] : null,
  };
}

/** Why a letter is never replayed; null when it may be. */
const refusalOf = (kind: string) =>
  kind === 'scopes'
    ? 'a scope change is not replayed: it would undo later changes of the player; set the scopes again'
    : null;

export function createIngestConsole(deps: IngestConsoleDeps) {
  const { kafka, replays } = deps;
  let last: IngestLag | undefined;

  const run = <T>(
    session: ConsoleSession,
    entry: Omit<AuditRecord, 'actor' | 'reason' | 'outcome'>,
    f: () => Promise<T>,
  ) =>
    audited(
      deps.audit,
      // `entry` is written once `f` ended: f completes its details.
      Object.assign(entry, { actor: session.name, reason: `console (API key ${session.keyId})` }),
      f,
      (err) => deps.onRecordFailed(err, entry.action),
    );

  /** The DLQ partition's offsets kept, or 404-like bad input for one that does not exist. */
  async function bounds(partition: number) {
    const p = (await kafka.lag()).dlq.partitions.find((d) => d.partition === partition);
    if (!p) throw badInput('partition', `the DLQ has no partition ${partition}`);
    return { low: BigInt(p.low), high: BigInt(p.high) };
  }

  async function view(letters: DeadLetter[], partition: number, from: bigint, to: bigint) {
    const done = await replays.within(kafka.dlqTopic, partition, from, to);
    return letters.map((l) => {
      const content = contentOf(l.value);
      const replay = done.get(l.offset);
      return {
        ...l,
        ...content,
        replayed: replay ? { at: replay.at.toISOString(), actor: replay.actor } : null,
        refusal: refusalOf(content.kind),
      };
    });
  }

  async function replayOne(session: ConsoleSession, partition: number, offset: bigint) {
    const details: Record<string, unknown> = { dlqTopic: kafka.dlqTopic, partition, offset: String(offset) };
    const entry = { action: 'dlq_replay', details, seasonId: null as number | null, playerId: null as string | null };
    return run(session, entry, async () => {
      const { low, high } = await bounds(partition);
      if (offset < low || offset >= high) throw badInput('offset', `no dead letter at ${partition}/${offset}`);
      const [letter] = await kafka.readDeadLetters(partition, offset, offset + 1n);
      if (!letter) throw badInput('offset', `dead letter ${partition}/${offset} could not be read`);
      const content = contentOf(letter.value);
      Object.assign(details, { matchId: content.matchId, code: letter.code });
      entry.seasonId = content.seasonId;
      entry.playerId = content.playerId && /^\d{1,19}$/.test(content.playerId) ? content.playerId : null;
      const refusal = refusalOf(content.kind);
      if (refusal) throw badInput('offset', refusal);
      const sent = await replays.claim(kafka.dlqTopic, [letter], session.name, (l) => kafka.republish(l));
      details['replayed'] = sent.length === 1;
      return { partition, offset: letter.offset, replayed: sent.length === 1, alreadyReplayed: sent.length === 0 };
    });
  }

  async function replayAll(session: ConsoleSession) {
    const details: Record<string, unknown> = { dlqTopic: kafka.dlqTopic };
    return run(session, { action: 'dlq_replay_all', details }, async () => {
      const { dlq } = await kafka.lag();
      let replayed = 0;
      let refused = 0;
      let more = false;
      const letters: Array<{ partition: number; offset: string; matchId: string | null }> = [];
      for (const p of dlq.partitions) {
        const from = BigInt(p.low);
        const to = BigInt(p.high) - from > ALL_AT_ONCE ? from + BigInt(ALL_AT_ONCE) : BigInt(p.high);
        more ||= to < BigInt(p.high);
        const done = await replays.within(kafka.dlqTopic, p.partition, from, to);
        const todo = (await kafka.readDeadLetters(p.partition, from, to)).filter((l) => !done.has(l.offset));
        const open = todo.filter((l) => refusalOf(contentOf(l.value).kind) === null);
        refused += todo.length - open.length;
        const sent = await replays.claim(kafka.dlqTopic, open, session.name, (l) => kafka.republish(l));
        replayed += sent.length;
        for (const l of sent)
          letters.push({ partition: l.partition, offset: l.offset, matchId: contentOf(l.value).matchId });
      }
      Object.assign(details, { replayed, refused, letters: letters.slice(0, 100) });
      return { replayed, refused, more };
    });
  }

  return {
    /** Lag per partition, messages consumed per second since the last reading, the DLQ's size. */
    async health() {
      const now = await kafka.lag();
      const rate = ratePerSecond(last, now);
      if (!last || now.at - last.at >= 1000) last = now;
      return { ...now, at: new Date(now.at).toISOString(), ratePerSecond: rate };
    },
    /** A page of DLQ `partition`, newest first: up to 50 letters below offset `before` (default: the end). */
    async deadLetters(query: URLSearchParams) {
      const partition = Number(query.get('partition') ?? 0);
      if (!Number.isInteger(partition) || partition < 0) throw badInput('partition', 'partition must be 0 or more');
      const { low, high } = await bounds(partition);
      const asked = query.get('before');
      if (asked !== null && !/^\d{1,19}$/.test(asked)) throw badInput('before', 'before must be an offset');
      const to = asked === null || BigInt(asked) > high ? high : BigInt(asked);
      const from = to - BigInt(PAGE) > low ? to - BigInt(PAGE) : low;
      const letters = await view(await kafka.readDeadLetters(partition, from, to), partition, from, to);
      return { partition, low: String(low), high: String(high), letters: letters.reverse() };
    },
    replayOne,
    replayAll,
  };
}

type IngestConsole = ReturnType<typeof createIngestConsole>;

const offsetOf = (s: string, field: string) => {
  if (!/^\d{1,19}$/.test(s)) throw badInput(field, `${field} must be a non-negative integer`);
  return BigInt(s);
};

export const ingestRoutes = (i: IngestConsole): ConsoleRoute[] => [
  { method: 'GET', path: /^\/ingest$/, run: () => i.health() },
  { method: 'GET', path: /^\/ingest\/dlq$/, run: (r) => i.deadLetters(r.query) },
  { method: 'POST', path: /^\/ingest\/dlq\/replay-all$/, run: (r) => i.replayAll(r.session) },
  {
    method: 'POST',
    path: /^\/ingest\/dlq\/(\d{1,9})\/(\d{1,19})\/replay$/,
    run: (r) => i.replayOne(r.session, Number(r.params[0]), offsetOf(r.params[1]!, 'offset')),
  },
];
