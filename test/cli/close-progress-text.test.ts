import { describe, expect, it } from 'vitest';
import { closeProgressLine, createCloseProgress } from '../../src/cli/close-progress-text.js';
import { closeSeason, type CloseDeps } from '../../src/service/close-season.js';
import { testSeason } from '../support/season.js';

describe('the line for each step of a close', () => {
  it.each([
    [
      'waitInFlight',
      'waiting 15.0 s for submissions already accepted to reach Kafka (SEASON_CACHE_TTL_MS + SEASON_CLOSE_GRACE_MS)',
      { step: 'waitInFlight', waitMs: 15_000 },
    ],
    [
      'drain',
      'waiting for the ingest group to apply what Kafka held: 1 partition(s) behind (2 at -1 of 7)',
      { step: 'drain', behind: [{ partition: 2, committed: -1n, end: 7n }] },
    ],
    [
      'drain',
      'waiting for the ingest group to apply what Kafka held: 8 partition(s) behind (0 at 10 of 12, 1 at 10 of 12, ' +
        '2 at 10 of 12, 3 at 10 of 12, 4 at 10 of 12, 5 at 10 of 12, 2 more)',
      {
        step: 'drain',
        behind: Array.from({ length: 8 }, (_, i) => ({ partition: i, committed: 10n, end: 12n })),
      },
    ],
    ['drain', 'the ingest group has applied every result Kafka held', { step: 'drain', behind: [] }],
    ['finalize', 'writing every final rank, and the rewards they earn, to PostgreSQL', { step: 'finalize' }],
    [
      'publishRewards',
      'sending the rewards Kafka has not acknowledged yet to the rewards topic',
      { step: 'publishRewards' },
    ],
    [
      'waitReaders',
      'waiting 5.0 s for every process to read the season from PostgreSQL (SEASON_CACHE_TTL_MS)',
      { step: 'waitReaders', waitMs: 5_000 },
    ],
    ['removeKeys', 'removing its Redis keys', { step: 'removeKeys' }],
  ] as const)('%s: "%s"', (_step, line, progress) => {
    expect(closeProgressLine(progress as Parameters<typeof closeProgressLine>[0])).toBe(line);
  });
});

describe('a close, told as it goes', () => {
  it('says each step as it begins, and the partitions behind each time they change', async () => {
    const printed: string[] = [];
    const log = (s: string) => printed.push(s);
    let clock = 0;
    // Partition 0 is applied up to 3, 3 again, then 9, then 10 (its end): three distinct drain lines.
    const committed = [3n, 3n, 9n, 10n];
    const deps: CloseDeps = {
      store: {
        get: async () => testSeason({ id: 7 }),
        markClosed: async () => {
          log('(markClosed)\n');
        },
        finalize: async () => (log('(finalize)\n'), { boards: 1, rows: 1 }),
      },
      ingest: {
        endOffsets: async () => [{ partition: 0, end: 10n, start: 0n }],
        committedOffsets: async () => new Map([[0, committed.shift()!]]),
      },
      keys: { remaining: async () => false, remove: async () => (log('(remove)\n'), 1) },
      invalidate: () => {},
      cacheTtlMs: 5_000,
      graceMs: 10_000,
      drainTimeoutMs: 60_000,
      now: () => clock,
      sleep: async (ms) => {
        clock += ms;
      },
      onProgress: (_id, p) => progress(p),
    };
    const progress = createCloseProgress('close season 7', log);
    await closeSeason(deps, 7, { actor: 'test', reason: 'unit' });
    expect(printed.join('')).toBe(
      [
        '(markClosed)',
        'close season 7: waiting 15.0 s for submissions already accepted to reach Kafka (SEASON_CACHE_TTL_MS + SEASON_CLOSE_GRACE_MS)',
        'close season 7: waiting for the ingest group to apply what Kafka held: 1 partition(s) behind (0 at 3 of 10)',
        'close season 7: waiting for the ingest group to apply what Kafka held: 1 partition(s) behind (0 at 9 of 10)',
        'close season 7: the ingest group has applied every result Kafka held',
        'close season 7: writing every final rank, and the rewards they earn, to PostgreSQL',
        '(finalize)',
        'close season 7: sending the rewards Kafka has not acknowledged yet to the rewards topic',
        'close season 7: waiting 5.0 s for every process to read the season from PostgreSQL (SEASON_CACHE_TTL_MS)',
        'close season 7: removing its Redis keys',
        '(remove)',
        '',
      ].join('\n'),
    );
  });
});
