// A console route that answers with a file (routes.ts: it writes to `res` itself): streamed chunk
// by chunk with backpressure, the headers sent with the first chunk (an error before it is still
// answered as JSON by http.ts), and a failure after them cuts the response, so that a partial
// file never looks complete.
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';

export async function sendDownload<T>(
  res: ServerResponse,
  file: { name: string; type: string },
  produce: (write: (chunk: string) => Promise<void>) => Promise<T>,
): Promise<T> {
  const start = () =>
    res.headersSent ||
    res.writeHead(200, {
      'content-type': file.type,
      'content-disposition': `attachment; filename="${file.name}"`,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    });
  try {
    const result = await produce(async (chunk) => {
      start();
      if (!res.write(chunk)) await once(res, 'drain');
    });
    start();
    res.end();
    return result;
  } catch (err) {
    if (res.headersSent) res.destroy();
    throw err;
  }
}
