// Request bodies, read whole before routing and bounded on the bytes actually read.
import type { IncomingMessage } from 'node:http';

/**
 * The request body as text ('' when the request has none), or undefined once it exceeds `limit`
 * bytes, whatever Content-Length says: reading stops there, and the rest is only read to be
 * discarded, within bounds, while the client reads its 413 (lingering-close.ts).
 */
export function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  const length = req.headers['content-length'];
  if (req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0'))
    return Promise.resolve('');
  if (Number(length ?? 0) > limit) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    // A small body comes in one chunk: decoded as it is, without a copy.
    req.once('end', () => resolve((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8')));
    req.once('error', reject);
  });
}
