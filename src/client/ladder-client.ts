// The typed client of ladder, for game servers (Node) and game clients or pages (browsers): the
// operations of client/operations/*.graphql with the types GraphQL Code Generator derives from
// the schema (generated.ts, `npm run codegen`). Queries and mutations go over HTTP (fetch),
// subscriptions over graphql-ws on the same URL. A call refused as UNAVAILABLE or RATE_LIMITED,
// or lost on the network, is sent again as it was: for submitMatchResult that is the same
// matchId, which the server deduplicates. No Node built-ins here: the page loads this module.
// Reads and subscriptions of a board take an optional `scope` (a region or a group): with one,
// the client sends the operation's scoped twin (client/operations/scopes.graphql), whose entries
// carry the server's globalRank; without, the operation of the whole board, as before.
import { createClient, type Client } from 'graphql-ws';
import * as ops from './generated.js';
import type { MatchResultInput, ScopeInput, TypedDocumentString } from './generated.js';

export type * from './generated.js';

/** An entry as every operation returns it; globalRank is its rank on the whole board. */
export type Entry = ops.EntryFieldsFragment & { globalRank: number | null };

/** A reward as every rewards operation returns it (rewards, claimReward, rewardGranted). */
export type Reward = ops.RewardFieldsFragment;

/** A player's place in a league season (null before their first result): tier, cohort, zone, cohort board. */
export type LeagueStanding = ops.LeagueStandingQuery['leagueStanding'];

/** A group's standing on a group board. */
export type GroupStanding = NonNullable<ops.GroupsQuery['leaderboard']>['groups'][number];

/**
 * An entry read on the board of every player: its rank is its global rank, which is what the
 * server's Entry.globalRank answers there; filled in here so that every entry has one.
 */
const onWholeBoard = <E extends { rank: number }>(e: E): E & { globalRank: number } => ({ ...e, globalRank: e.rank });

/** A board operation's variables without their scope, for the operation of the whole board. */
function withoutScope<V extends { scope?: ScopeInput | null }>(variables: V): Omit<V, 'scope'> {
  const { scope: _scope, ...rest } = variables;
  return rest;
}

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
    /** The top, within `scope` when given; null: unknown season. */
    top: async (
      variables: ops.ScopedTopQueryVariables,
      call?: CallOptions,
    ): Promise<ops.ScopedTopQuery['leaderboard']> => {
      if (variables.scope) return (await request(ops.ScopedTopDocument, variables, call)).leaderboard;
      const board = (await request(ops.TopDocument, withoutScope(variables), call)).leaderboard;
      return board && { ...board, top: board.top.map(onWholeBoard) };
    },
    /** One player's entry (null: unranked) and percentile, within `scope` when given; null: unknown season. */
    entry: async (
      variables: ops.ScopedEntryQueryVariables,
      call?: CallOptions,
    ): Promise<ops.ScopedEntryQuery['leaderboard']> => {
      if (variables.scope) return (await request(ops.ScopedEntryDocument, variables, call)).leaderboard;
      const board = (await request(ops.EntryDocument, withoutScope(variables), call)).leaderboard;
      return board && { ...board, entry: board.entry && onWholeBoard(board.entry) };
    },
    /** The player and their neighbours, within `scope` when given; null: unknown season. */
    around: async (
      variables: ops.ScopedAroundQueryVariables,
      call?: CallOptions,
    ): Promise<ops.ScopedAroundQuery['leaderboard']> => {
      if (variables.scope) return (await request(ops.ScopedAroundDocument, variables, call)).leaderboard;
      const board = (await request(ops.AroundDocument, withoutScope(variables), call)).leaderboard;
      return board && { ...board, around: board.around.map(onWholeBoard) };
    },
    /** Friends by rank, within `scope` when given (ids outside it are left out); null: unknown season. */
    friends: async (
      variables: ops.ScopedFriendsQueryVariables,
      call?: CallOptions,
    ): Promise<ops.ScopedFriendsQuery['leaderboard']> => {
      if (variables.scope) return (await request(ops.ScopedFriendsDocument, variables, call)).leaderboard;
      const board = (await request(ops.FriendsDocument, withoutScope(variables), call)).leaderboard;
      return board && { ...board, friends: board.friends.map(onWholeBoard) };
    },
    /** Friends by rank, a page at a time (pass endCursor as `after`), within `scope` if given; null: unknown season. */
    friendsPage: async (
      variables: ops.ScopedFriendsPageQueryVariables,
      call?: CallOptions,
    ): Promise<NonNullable<ops.ScopedFriendsPageQuery['leaderboard']>['friendsPage'] | null> => {
      if (variables.scope)
        return (await request(ops.ScopedFriendsPageDocument, variables, call)).leaderboard?.friendsPage ?? null;
      const page = (await request(ops.FriendsPageDocument, withoutScope(variables), call)).leaderboard?.friendsPage;
      return page ? { ...page, entries: page.entries.map(onWholeBoard) } : null;
    },
    /** A player's region and groups as ingest last applied them; null: none set. */
    playerScopes: async (playerId: string, call?: CallOptions) =>
      (await request(ops.PlayerScopesDocument, { playerId }, call)).playerScopes,
    /** The periods of a window that hold standings, newest first, with size and top 3; null: unknown season. */
    periods: async (variables: ops.PeriodsQueryVariables, call?: CallOptions) =>
      (await request(ops.PeriodsDocument, variables, call)).season?.periods ?? null,
    /**
     * The board's size and what it takes to hold place `rank` (cutoff null: fewer ranked), within
     * `scope` when given; null: unknown season.
     */
    cutoff: async (variables: ops.CutoffQueryVariables, call?: CallOptions) =>
      (await request(ops.CutoffDocument, variables, call)).leaderboard,
    /** The player's SEASON rank at the last daily snapshots, and the delta since; null: unknown season or unranked. */
    rankHistory: async (variables: ops.RankHistoryQueryVariables, call?: CallOptions) =>
      (await request(ops.RankHistoryDocument, variables, call)).leaderboard?.entry ?? null,
    /**
     * Groups (clans) ranked by their members' total on the board, best first ([] on an ASC board);
     * null: unknown season. A group's own board is `top` within `scope: { group }`.
     */
    groups: async (
      seasonId: number,
      options: Omit<ops.GroupsQueryVariables, 'seasonId'> = {},
      call?: CallOptions,
    ): Promise<GroupStanding[] | null> =>
      (await request(ops.GroupsDocument, { ...options, seasonId }, call)).leaderboard?.groups ?? null,
    /** A season's league (tiers lowest first, cohortSize, promote, relegate); null: not a league season, or unknown. */
    league: async (seasonId: number, call?: CallOptions) =>
      (await request(ops.SeasonLeagueDocument, { seasonId }, call)).season?.league ?? null,
    /**
     * A player's tier, cohort, zone and cohort board (its top `limit` and their entry) in a league
     * season; null before their first result. BAD_USER_INPUT: not a league season.
     */
    leagueStanding: async (variables: ops.LeagueStandingQueryVariables, call?: CallOptions): Promise<LeagueStanding> =>
      (await request(ops.LeagueStandingDocument, variables, call)).leagueStanding,
    /** A player's rewards, newest first (`first`, default 50); of one season when seasonId is given. */
    rewards: async (playerId: string, options: Omit<ops.RewardsQueryVariables, 'playerId'> = {}, call?: CallOptions) =>
      (await request(ops.RewardsDocument, { ...options, playerId }, call)).rewards,
    /**
     * Marks a reward claimed (needs scope submit); a second claim returns it unchanged, which is
     * what makes retrying this mutation safe. BAD_USER_INPUT: no reward has this key.
     */
    claimReward: async (key: string, call?: CallOptions) =>
      (await request(ops.ClaimRewardDocument, { key }, call)).claimReward,
    /** The top now, then whenever it changes, within `scope` when given; returns the function that stops it. */
    topChanged: (
      variables: ops.ScopedTopChangedSubscriptionVariables,
      onData: (top: Entry[]) => void,
      onError?: (err: LadderError) => void,
    ) =>
      variables.scope
        ? subscribe(ops.ScopedTopChangedDocument, variables, (d) => onData(d.topChanged), onError)
        : subscribe(
            ops.TopChangedDocument,
            withoutScope(variables),
            (d) => onData(d.topChanged.map(onWholeBoard)),
            onError,
          ),
    /** The player's SEASON entry now (when ranked), then whenever their rank moves; within `scope` when given. */
    rankChanged: (
      variables: ops.ScopedRankChangedSubscriptionVariables,
      onData: (entry: Entry) => void,
      onError?: (err: LadderError) => void,
    ) =>
      variables.scope
        ? subscribe(ops.ScopedRankChangedDocument, variables, (d) => onData(d.rankChanged), onError)
        : subscribe(
            ops.RankChangedDocument,
            withoutScope(variables),
            (d) => onData(onWholeBoard(d.rankChanged)),
            onError,
          ),
    /** Every improvement on the season's board (of one player when playerId is given). */
    recordUpdated: (
      variables: ops.RecordUpdatedSubscriptionVariables,
      onData: (update: ops.RecordUpdatedSubscription['recordUpdated']) => void,
      onError?: (err: LadderError) => void,
    ) => subscribe(ops.RecordUpdatedDocument, variables, (d) => onData(d.recordUpdated), onError),
    /**
     * Each reward granted to the player from now on, as a season's close grants it. Pushed at most
     * once (a socket down during the close misses it): `rewards` is the record.
     */
    rewardGranted: (playerId: string, onData: (reward: Reward) => void, onError?: (err: LadderError) => void) =>
      subscribe(ops.RewardGrantedDocument, { playerId }, (d) => onData(d.rewardGranted), onError),
    /** Closes the subscriptions' socket. */
    close: async (): Promise<void> => {
      await ws?.dispose();
    },
  };
}

export type LadderClient = ReturnType<typeof createLadderClient>;
