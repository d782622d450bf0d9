import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { ifNoneMatchHits } from '../http-etag.js';

/** Is this a browser asking for the GraphQL endpoint's page (what yoga would answer with GraphiQL)? */
export function wantsGraphiQL(req: IncomingMessage, endpoint: string): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const path = req.url?.split('?')[0];
  return (path === endpoint || path === `${endpoint}/`) && (req.headers.accept ?? '').includes('text/html');
}

interface Encoded {
  identity: Buffer;
  gzip: Buffer;
  br: Buffer;
  etag: string;
}

/**
 * GraphiQL with its assets bundled (no internet needed): about 9 MB of HTML and script, so it is
 * rendered and compressed once, on the first load (gzip or brotli by Accept-Encoding), carries
 * an ETag (`If-None-Match` gives 304) and is cacheable for an hour. Full loads are rate limited
 * per address (`take`); revalidations are free.
 */
export function createGraphiQLPage(opts: { title: string; defaultQuery: string; take(address: string): boolean }) {
  let encoded: Promise<Encoded> | undefined;
  const encode = async (): Promise<Encoded> => {
    // Imported on the first load: its source, compiled, would otherwise sit in every API process's heap.
    const { renderGraphiQL } = await import('@graphql-yoga/render-graphiql');
    const identity = Buffer.from(renderGraphiQL({ title: opts.title, defaultQuery: opts.defaultQuery } as never));
    const [gz, br] = await Promise.all([
      // Off the event loop, on the first load only, and once: the page shrinks to about a quarter.
      // Higher qualities cost many times the CPU for a few percent.
      promisify(gzip)(identity, { level: 6 }),
      promisify(brotliCompress)(identity, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: identity.length },
      }),
    ]);
    return {
      identity,
      gzip: gz,
      br,
      etag: `"${createHash('sha256').update(identity).digest('base64url').slice(0, 22)}"`,
    };
  };

  return {
    async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
      const page = await (encoded ??= encode());
      const headers: Record<string, string | number> = {
        'content-type': 'text/html; charset=utf-8',
        etag: page.etag,
        'cache-control': 'public, max-age=3600',
        vary: 'Accept-Encoding',
      };
      if (ifNoneMatchHits(req.headers['if-none-match'], page.etag)) {
        res.writeHead(304, headers).end();
        return;
      }
      if (!opts.take(req.socket.remoteAddress ?? 'unknown')) {
        res
          .writeHead(429, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '10' })
          .end('too many GraphiQL loads from this address; slow down\n');
        return;
      }
      const accepted = String(req.headers['accept-encoding'] ?? '');
      const [encoding, body] = /\bbr\b/.test(accepted)
        ? (['br', page.br] as const)
        : /\bgzip\b/.test(accepted)
          ? (['gzip', page.gzip] as const)
          : ([undefined, page.identity] as const);
      if (encoding) headers['content-encoding'] = encoding;
      headers['content-length'] = body.length;
      res.writeHead(200, headers).end(req.method === 'HEAD' ? undefined : body);
    },
  };
}
