// The console's job status (src/console/jobs.ts) against the real Redis, as two API processes see
// it: a job started by one is followed by the other (its progress, then its report or its error),
// and a job whose process stops writing (here: its connection gone) disappears once its short
// running TTL passes, instead of showing "running" forever.
import { afterAll, expect, it } from 'vitest';
import { createConsoleJobs, type JobProgress } from '../../src/console/jobs.js';
import { createRedis } from '../../src/redis/client.js';
import { TEST_REDIS_URL } from '../support/env.js';
import { waitFor } from '../support/services.js';

const starter = createRedis(TEST_REDIS_URL);
const other = createRedis(TEST_REDIS_URL);
afterAll(() => {
  starter.disconnect();
  other.disconnect();
});
const fail = (err: unknown) => {
  throw err;
};

it('shows a job started in one process to another: progress, then the report or the error', async () => {
  const here = createConsoleJobs(starter, fail);
  const there = createConsoleJobs(other, fail);
  let progress!: JobProgress;
  let finish!: (n: number) => void;
  const started = await here.start(
    { kind: 'rebuild', seasonId: 7 },
    (p) => {
      progress = p;
      return new Promise<number>((resolve) => (finish = resolve));
    },
    (n) => n,
  );
  expect(await there.get(started.id)).toMatchObject({ kind: 'rebuild', seasonId: 7, state: 'running', done: 0 });
  progress.total(1000);
  progress.done(400);
  await waitFor('the progress seen', async () => (await there.get(started.id))?.done === 400);
  expect(await there.get(started.id)).toMatchObject({ state: 'running', done: 400, total: 1000 });
  expect(await other.ttl(`console:job:${started.id}`)).toBeLessThanOrEqual(30);
  finish(1000);
  await waitFor('the report seen', async () => (await there.get(started.id))?.state === 'done');
  expect(await there.get(started.id)).toMatchObject({ done: 1000, total: 1000, report: 1000, error: null });
  expect(await other.ttl(`console:job:${started.id}`)).toBeGreaterThan(3500);

  const failing = await here.start(
    { kind: 'reconcile', seasonId: 8 },
    () => Promise.reject(new Error('season 8 not found')),
    () => 0,
  );
  await waitFor('the failure seen', async () => (await there.get(failing.id))?.state === 'failed');
  expect((await there.get(failing.id))?.error).toBe('season 8 not found');
  expect(await there.get('not-a-job')).toBeUndefined();
});

it('forgets a running job whose process stopped writing once its running TTL passes', async () => {
  const dying = createRedis(TEST_REDIS_URL);
  const here = createConsoleJobs(dying, () => {}, { runningTtlSeconds: 1, heartbeatMs: 300 });
  const there = createConsoleJobs(other, fail);
  const started = await here.start(
    { kind: 'rebuild', seasonId: 9 },
    () => new Promise<number>(() => {}),
    (n) => n,
  );
  // Alive, the heartbeat keeps it past its TTL.
  await new Promise((r) => setTimeout(r, 1500));
  expect((await there.get(started.id))?.state).toBe('running');
  dying.disconnect();
  await waitFor('the job gone', async () => (await there.get(started.id)) === undefined, 5_000);
});
