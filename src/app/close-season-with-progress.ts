// The close procedure (service/close-season.ts) on an app's clients, for a caller that shows what it
// waits for as it goes: `npm run cli -- seasons close`. The same parts season-jobs.ts wires for the
// mutation and the scheduler, whose close has no progress to show.
import type { Config } from '../config.js';
import { createIngestProgress } from '../kafka/ingest-progress.js';
import { createSeasonLifecycleStore } from '../postgres/season-lifecycle-store.js';
import { createSeasonKeys } from '../redis/season-keys.js';
import { closeSeason, type CloseProgress, type CloseReport, type CloseRequest } from '../service/close-season.js';
import type { App } from './app.js';

/** Closes a season now with `app`'s clients, telling `onProgress` each step and the drain's partitions behind. */
export async function closeSeasonWithProgress(
  app: Pick<App, 'pg' | 'redis' | 'kafka' | 'seasons'>,
  config: Config,
  seasonId: number,
  by: CloseRequest,
  onProgress: (progress: CloseProgress) => void,
): Promise<CloseReport> {
  const ingest = createIngestProgress(app.kafka, config.kafka.topic, config.kafka.groupId);
  try {
    return await closeSeason(
      {
        store: createSeasonLifecycleStore(app.pg),
        ingest,
        keys: createSeasonKeys(app.redis),
        invalidate: (id) => app.seasons.invalidate(id),
        cacheTtlMs: config.seasons.cacheTtlMs,
        graceMs: config.seasons.closeGraceMs,
        drainTimeoutMs: config.seasons.closeDrainTimeoutMs,
        onProgress: (_seasonId, progress) => onProgress(progress),
      },
      seasonId,
      by,
    );
  } finally {
    await ingest.close();
  }
}
