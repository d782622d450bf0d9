// What `seasons close` tells the operator on stderr while a close waits: one line per step as it
// begins, and the partitions the ingest group still has to apply whenever they change.
import type { CloseProgress, PartitionBehind } from '../service/close-season.js';

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const SHOWN_PARTITIONS = 6;

function partitions(behind: PartitionBehind[]): string {
  const shown = behind.slice(0, SHOWN_PARTITIONS).map((p) => `${p.partition} at ${p.committed} of ${p.end}`);
  const more = behind.length > SHOWN_PARTITIONS ? `, ${behind.length - SHOWN_PARTITIONS} more` : '';
  return `${shown.join(', ')}${more}`;
}

/** The line for one progress event of a close. */
export function closeProgressLine(p: CloseProgress): string {
  switch (p.step) {
    case 'waitInFlight':
      return `waiting ${seconds(p.waitMs)} for submissions already accepted to reach Kafka (SEASON_CACHE_TTL_MS + SEASON_CLOSE_GRACE_MS)`;
    case 'drain':
      return p.behind.length === 0
        ? 'the ingest group has applied every result Kafka held'
        : `waiting for the ingest group to apply what Kafka held: ${p.behind.length} partition(s) behind (${partitions(p.behind)})`;
    case 'finalize':
      return 'writing every final rank, and the rewards they earn, to PostgreSQL';
    case 'publishRewards':
      return 'sending the rewards Kafka has not acknowledged yet to the rewards topic';
    case 'waitReaders':
      return `waiting ${seconds(p.waitMs)} for every process to read the season from PostgreSQL (SEASON_CACHE_TTL_MS)`;
    case 'removeKeys':
      return 'removing its Redis keys';
  }
}

/** Writes each event's line prefixed with `label`, a drain's line only when it says something new. */
export function createCloseProgress(label: string, write: (s: string) => void): (p: CloseProgress) => void {
  let last: string | undefined;
  return (p) => {
    const line = closeProgressLine(p);
    if (line === last) return; // the drain polls every 200 ms, mostly unchanged
    last = line;
    write(`${label}: ${line}\n`);
  };
}
