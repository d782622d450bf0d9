// The typed client of ladder, for game servers (Node) and game clients or pages (browsers): the
// operations of client/operations/*.graphql with the types GraphQL Code Generator derives from
// the schema (generated.ts, `npm run codegen`). Queries and the mutation go over HTTP (fetch),
// subscriptions over graphql-ws on the same URL. A call refused as UNAVAILABLE or RATE_LIMITED,
// or lost on the network, is sent again as it was: for submitMatchResult that is the same
// matchId, which the server deduplicates. No Node built-ins here: the page loads this module.
import { createClient, type Client } from 'graphql-ws';
import * as ops from './generated.js';
import type { MatchResultInput, TypedDocumentString } from './generated.js';

export type * from './generated.js';

/** An entry as every operation returns it. */
export type Entry = ops.EntryFieldsFragment;

/** Codes worth the same request again: the server is starting, overloaded or out of reach. */
const RETRYABLE = new Set(['UNAVAILABLE', 'RATE_LIMITED', 'NETWORK']);

/** An error of the API (its `extensions.code`), or NETWORK when no answer came. */
export class LadderError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'LadderError';
  }

  /** The same request may be sent again (see RETRYABLE). */
  get retryable(): boolean {
    return RETRYABLE.has(this.code);
  }
}

export interface LadderClientOptions {
  /** The GraphQL endpoint, e.g. http://localhost:4000/graphql; subscriptions use its ws:// twin. */
  url: string;
  /** Sent as `authorization: Bearer <apiKey>`; submitMatchResult needs scope submit. */
  apiKey?: string;
  /** The WebSocket class for subscriptions where there is no global one (Node 20: `ws`'s). */
  webSocketImpl?: unknown;
  /** Per HTTP attempt (default 15 s). */
  timeoutMs?: number;
}

export interface CallOptions {
  /** Ends the retries: a pause between attempts is cut short and the call fails with the last
   * error. An attempt already sent is not cut: its answer says whether the server has the call. */
  signal?: AbortSignal;
  /** Attempts in all, the first included (default 5); 1 turns retries off. */
  attempts?: number;
  /** Called before each retry, with the error that caused it. */
  onRetry?(err: LadderError, attempt: number): void;
}

/** Waits `ms`, or less when `signal` aborts; leaves no listener behind either way. */
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done);
  });

/**
 * What graphql-ws hands a subscription's error sink as a LadderError: the server's refusal (an
 * array of GraphQL errors, e.g. RATE_LIMITED past the subscriptions a socket may hold), or a
 * socket that closed for good (NETWORK).
 */
function subscriptionError(err: unknown): LadderError {
  const first = Array.isArray(err)
    ? (err[0] as { message?: string; extensions?: { code?: unknown } } | undefined)
    : undefined;
  if (first) return new LadderError(String(first.message), String(first.extensions?.code ?? 'UNKNOWN'));
  const reason = err as { reason?: string; message?: string } | undefined;
  return new LadderError(
    `subscription socket closed${reason?.reason || reason?.message ? `: ${reason.reason || reason.message}` : ''}`,
    'NETWORK',
  );
}

/** A client of one ladder API: typed queries, the mutation and subscriptions (see the file's head). */
export function createLadderClient(options: LadderClientOptions) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;

  /** One HTTP attempt; every failure becomes a LadderError. */
  async function once<R, V>(doc: TypedDocumentString<R, V>, variables: V): Promise<R> {
    let res: Response;
    try {
      res = await fetch(options.url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ query: doc.toString(), variables }),
        signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
      });
    } catch (err) {
      // Connection refused or reset, or no answer in time: undici keeps the reason in `cause`.
      const reason = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
      throw new LadderError(`network error (${reason}) at ${options.url}`, 'NETWORK');
    }
    type Body = { data?: R; errors?: Array<{ message: string; extensions?: { code?: string } }> };
    const body = (await res.json().catch(() => ({}))) as Body;
    const error = body.errors?.[0];
    if (error) throw new LadderError(error.message, error.extensions?.code ?? 'UNKNOWN');
    // 408: the server gave up receiving the request (Node's requestTimeout, e.g. while it was
    // starved of CPU) and never ran it: as safe to send again as a request lost on the network.
    if (!res.ok || !body.data)
      throw new LadderError(
        `HTTP ${res.status} without data`,
        res.status >= 500 ? 'UNAVAILABLE' : res.status === 408 ? 'NETWORK' : 'BAD_RESPONSE',
      );
    return body.data;
  }

  /** `once`, again after a growing, jittered pause while the error is retryable. */
  async function request<R, V>(doc: TypedDocumentString<R, V>, variables: V, call: CallOptions = {}): Promise<R> {
    const attempts = call.attempts ?? 5;
    for (let attempt = 1; ; attempt++) {
      try {
        return await once(doc, variables);
      } catch (err) {
        const e = err as LadderError;
        if (!e.retryable || attempt >= attempts || call.signal?.aborted) throw e;
        call.onRetry?.(e, attempt);
        await sleep(Math.min(5_000, 100 * 2 ** attempt) * (0.5 + Math.random()), call.signal);
        if (call.signal?.aborted) throw e;
      }
    }
  }

  let ws: Client | undefined;
  /** One subscription on the shared socket (opened on first use, reconnecting); returns its stop. */
  function subscribe<R, V>(
    doc: TypedDocumentString<R, V>,
    variables: V,
    onData: (data: R) => void,
    onError?: (err: LadderError) => void,
  ): () => void {
    ws ??= createClient({
      url: options.url.replace(/^http/, 'ws'),
      webSocketImpl: options.webSocketImpl,
      // A restart or a network blip: reconnect and resubscribe, for as long as the page lives.
      retryAttempts: Number.POSITIVE_INFINITY,
      shouldRetry: () => true,
    });
    return ws.subscribe<R>(
      { query: doc.toString(), variables: variables as Record<string, unknown> },
      {
        next: (r) => {
          if (r.errors?.[0])
            onError?.(new LadderError(r.errors[0].message, String(r.errors[0].extensions?.code ?? 'UNKNOWN')));
          else if (r.data) onData(r.data);
        },
        error: (err) => onError?.(subscriptionError(err)),
        complete: () => {},
      },
    );
  }

  return {
    /** Submits one finished match; retried with the same input (matchId) while retryable. */
    submitMatchResult: async (input: MatchResultInput, call?: CallOptions) =>
      (await request(ops.SubmitMatchResultDocument, { input }, call)).submitMatchResult,
    seasons: async (variables: ops.SeasonsQueryVariables = {}, call?: CallOptions) =>
      (await request(ops.SeasonsDocument, variables, call)).seasons,
    season: async (id: number, call?: CallOptions) => (await request(ops.SeasonDocument, { id }, call)).season,
    /** null: unknown season. */
    top: async (variables: ops.TopQueryVariables, call?: CallOptions) =>
      (await request(ops.TopDocument, variables, call)).leaderboard,
    entry: async (variables: ops.EntryQueryVariables, call?: CallOptions) =>
      (await request(ops.EntryDocument, variables, call)).leaderboard,
    around: async (variables: ops.AroundQueryVariables, call?: CallOptions) =>
      (await request(ops.AroundDocument, variables, call)).leaderboard,
    friends: async (variables: ops.FriendsQueryVariables, call?: CallOptions) =>
      (await request(ops.FriendsDocument, variables, call)).leaderboard,
    /** Friends by rank, a page at a time (pass endCursor as `after`); null: unknown season. */
    friendsPage: async (variables: ops.FriendsPageQueryVariables, call?: CallOptions) =>
      (await request(ops.FriendsPageDocument, variables, call)).leaderboard?.friendsPage ?? null,
    /** The periods of a window that hold standings, newest first, with size and top 3; null: unknown season. */
    periods: async (variables: ops.PeriodsQueryVariables, call?: CallOptions) =>
      (await request(ops.PeriodsDocument, variables, call)).season?.periods ?? null,
    /** The board's size and what it takes to hold place `rank` (cutoff null: fewer ranked); null: unknown season. */
    cutoff: async (variables: ops.CutoffQueryVariables, call?: CallOptions) =>
      (await request(ops.CutoffDocument, variables, call)).leaderboard,
    /** The player's SEASON rank at the last daily snapshots, and the delta since; null: unknown season or unranked. */
    rankHistory: async (variables: ops.RankHistoryQueryVariables, call?: CallOptions) =>
      (await request(ops.RankHistoryDocument, variables, call)).leaderboard?.entry ?? null,
    /** The top now, then whenever it changes; returns the function that stops it. */
    topChanged: (
      variables: ops.TopChangedSubscriptionVariables,
      onData: (top: Entry[]) => void,
      onError?: (err: LadderError) => void,
    ) => subscribe(ops.TopChangedDocument, variables, (d) => onData(d.topChanged), onError),
    /** The player's SEASON entry now (when ranked), then whenever their rank moves. */
    rankChanged: (
      variables: ops.RankChangedSubscriptionVariables,
      onData: (entry: Entry) => void,
      onError?: (err: LadderError) => void,
    ) => subscribe(ops.RankChangedDocument, variables, (d) => onData(d.rankChanged), onError),
    /** Every improvement on the season's board (of one player when playerId is given). */
    recordUpdated: (
      variables: ops.RecordUpdatedSubscriptionVariables,
      onData: (update: ops.RecordUpdatedSubscription['recordUpdated']) => void,
      onError?: (err: LadderError) => void,
    ) => subscribe(ops.RecordUpdatedDocument, variables, (d) => onData(d.recordUpdated), onError),
    /** Closes the subscriptions' socket. */
    close: async (): Promise<void> => {
      await ws?.dispose();
    },
  };
}

export type LadderClient = ReturnType<typeof createLadderClient>;
