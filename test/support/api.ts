// A real ladder (API + ingest) on port 0 for end-to-end tests, with HTTP and graphql-ws clients.
import type { AddressInfo } from 'node:net';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { buildApp } from '../../src/app/app.js';
import type { Logger } from '../../src/logger.js';
import { createApiKeysRepo } from '../../src/postgres/api-keys-repo.js';
import { createApiKey, type Scope } from '../../src/service/api-keys.js';
import { testConfig } from './env.js';
import { createTopics, openServices, waitFor } from './services.js';

export interface GqlResponse<T = Record<string, any>> {
  status: number;
  data?: T;
  errors?: Array<{ message: string; extensions?: { code?: string; field?: string } }>;
}

/** `logger`: the app's logger instead of the test services' one (a test reading its lines). */
export async function startApi(overrides: Record<string, string> = {}, opts: { logger?: Logger } = {}) {
  const config = testConfig({ PORT: '0', HOST: '127.0.0.1', ...overrides });
  const s = openServices(config);
  await createTopics(s.kafka, config);
  const app = buildApp(config, { roles: ['api', 'ingest'], logger: opts.logger ?? s.logger });
  await app.start();
  const { port } = app.api!.server.server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  const url = `${base}/graphql`;
  const keys = createApiKeysRepo(s.pg.db);
  const key = async (...scopes: Scope[]) =>
    (await createApiKey(keys, { name: `test ${scopes.join('+')}`, scopes })).key;
  const clients: Client[] = [];

  async function gql<T = Record<string, any>>(
    query: string,
    variables?: Record<string, unknown>,
    apiKey?: string,
  ): Promise<GqlResponse<T>> {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
      body: JSON.stringify({ query, variables }),
    });
    return { status: res.status, ...((await res.json()) as object) };
  }

  /** A graphql-ws client on its own socket. */
  function wsClient(): Client {
    const client = createClient({
      url: url.replace('http', 'ws'),
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      lazy: true,
    });
    clients.push(client);
    return client;
  }

  /**
   * Opens a subscription over a real graphql-ws socket (its own, unless `client` is given); collects
   * every message it gets.
   */
  function subscribe(query: string, variables?: Record<string, unknown>, client: Client = wsClient()) {
    const events: Array<GqlResponse> = [];
    let failure: unknown;
    const dispose = client.subscribe(
      { query, variables },
      {
        next: (value) => {
          events.push(value as GqlResponse);
        },
        error: (err) => {
          failure = err;
        },
        complete: () => {},
      },
    );
    return {
      events,
      get failure() {
        return failure;
      },
      /** Waits until some event satisfies `match` and returns it. */
      async waitFor<T = any>(
        what: string,
        match: (e: GqlResponse) => boolean,
        timeoutMs = 10_000,
      ): Promise<GqlResponse<T>> {
        let found: GqlResponse | undefined;
        await waitFor(what, async () => (found = events.find(match)) !== undefined || failure !== undefined, timeoutMs);
        if (!found) throw Object.assign(new Error(`subscription failed: ${JSON.stringify(failure)}`), { failure });
        return found as GqlResponse<T>;
      },
      close: () => {
        dispose();
        void client.dispose();
      },
    };
  }

  return {
    config,
    s,
    app,
    base,
    url,
    key,
    gql,
    subscribe,
    wsClient,
    async close() {
      for (const c of clients) await c.dispose();
      await app.stop();
      await s.close();
    },
  };
}

export type TestApi = Awaited<ReturnType<typeof startApi>>;

/** The code and field of a response's first error: [undefined, undefined] without one. */
export const errorOf = (res: Pick<GqlResponse, 'errors'>) => [
  res.errors?.[0]?.extensions?.code,
  res.errors?.[0]?.extensions?.field,
];

/** An ISO instant `minutes` from now. */
export const minutesFromNow = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
