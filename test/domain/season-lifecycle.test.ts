import { describe, expect, it } from 'vitest';
import { lifecycleStep, type LifecycleStep } from '../../src/domain/season-lifecycle.js';
import type { SeasonStatus } from '../../src/domain/season.js';

const startsAt = new Date('2026-01-01T00:00:00.000Z');
const endsAt = new Date('2026-04-01T00:00:00.000Z');
const finalized = new Date('2026-04-01T00:05:00.000Z');

describe('the season scheduler step', () => {
  it.each<[SeasonStatus, string, Date | null, LifecycleStep]>([
    ['SCHEDULED', '2025-12-31T23:59:59.999Z', null, 'none'],
    ['SCHEDULED', '2026-01-01T00:00:00.000Z', null, 'activate'],
    ['SCHEDULED', '2026-03-31T23:59:59.999Z', null, 'activate'],
    // Its end passed while no scheduler ran: straight to the close, never through ACTIVE.
    ['SCHEDULED', '2026-04-01T00:00:00.000Z', null, 'close'],
    ['ACTIVE', '2026-02-01T00:00:00.000Z', null, 'none'],
    ['ACTIVE', '2026-03-31T23:59:59.999Z', null, 'none'],
    ['ACTIVE', '2026-04-01T00:00:00.000Z', null, 'close'],
    // Closed early by an admin, or a close cut short before its final standings: (re)do it.
    ['CLOSED', '2026-02-01T00:00:00.000Z', null, 'close'],
    ['CLOSED', '2025-06-01T00:00:00.000Z', null, 'close'],
    ['CLOSED', '2026-05-01T00:00:00.000Z', finalized, 'sweep'],
  ])('%s at %s (finalized %s): %s', (status, now, finalizedAt, step) => {
    expect(lifecycleStep({ status, startsAt, endsAt, finalizedAt }, new Date(now))).toBe(step);
  });
});
