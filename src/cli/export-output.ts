// Where an export goes: stdout, or a file that appears only once complete.
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rename, unlink } from 'node:fs/promises';

/** A sink with backpressure: `write` resolves once the stream can take more. */
export interface ExportSink {
  write(chunk: string): Promise<void>;
  /** Flushes; a file is renamed into place only now, so a failed export never looks complete. */
  commit(): Promise<void>;
  /** Drops a partial file. */
  abort(): Promise<void>;
}

/** stdout when `path` is undefined, else `path` (written as `path.partial`, renamed on commit). */
export function openExportSink(path: string | undefined): ExportSink {
  const partial = path === undefined ? undefined : `${path}.partial`;
  const stream = partial === undefined ? process.stdout : createWriteStream(partial, { flags: 'w' });
  return {
    async write(chunk) {
      // Millions of rows: without waiting for 'drain', the whole export would sit in memory.
      if (!stream.write(chunk)) await once(stream, 'drain');
    },
    async commit() {
      if (partial === undefined || path === undefined) return;
      await new Promise<void>((resolve, reject) => {
        stream.once('error', reject);
        stream.end(() => resolve());
      });
      await rename(partial, path);
    },
    async abort() {
      if (partial === undefined) return;
      stream.destroy();
      await unlink(partial).catch(() => {});
    },
  };
}
