// The console's long jobs (rebuild, reconcile: docs/operations.md#console). A job runs in the process
// that started it; its status lives in Redis under console:job:<id>, so that any API worker or
// instance answers the page's polls. While it runs the key's TTL is short and refreshed by every
// progress write and a heartbeat: a job whose process died is gone within 30 s (the page says
// so) instead of showing "running" forever. A finished job's status stays an hour.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

/** How a job tells its progress: its total once known, then how much is done. */
export interface JobProgress {
  total(n: number): void;
  done(n: number): void;
}

/** What the page shows: progress while running, then the report or the error. */
export interface JobStatus {
  id: string;
  kind: string;
  seasonId: number;
  state: 'running' | 'done' | 'failed';
  /** Members written or compared so far, of `total` (PostgreSQL's count of the live boards' standings). */
  done: number;
  total: number;
  startedAt: string;
  finishedAt: string | null;
  report: unknown;
  error: string | null;
}

/** How long a running job's status outlives its last write, and how often it is written anyway. */
const TIMING = { runningTtlSeconds: 30, heartbeatMs: 10_000 };
const FINISHED_TTL_SECONDS = 3600;
/** Progress is written at most this often (a 10M-member job reports thousands of pages). */
const WRITE_EVERY_MS = 250;

const keyOf = (id: string) => `console:job:${id}`;
const ID_SHAPE = /^[A-Za-z0-9_-]{22}$/;

export function createConsoleJobs(redis: Redis, onError: (err: unknown) => void, timing = TIMING) {
  const RUNNING_TTL_SECONDS = timing.runningTtlSeconds;
  const save = (s: JobStatus, ttl: number) =>
    redis.set(keyOf(s.id), JSON.stringify(s), 'EX', ttl).catch((err: unknown) => onError(err));

  return {
    /** Starts `work` in this process and returns its status at once; `doneOf` reads the final count off its report. */
    async start<T>(
      job: { kind: string; seasonId: number },
      work: (progress: JobProgress) => Promise<T>,
      doneOf: (report: T) => number,
    ): Promise<JobStatus> {
      const status: JobStatus = {
        id: randomBytes(16).toString('base64url'),
        ...job,
        state: 'running',
        done: 0,
        total: 0,
        startedAt: new Date().toISOString(),
        finishedAt: null,
        report: null,
        error: null,
      };
      await save(status, RUNNING_TTL_SECONDS);
      let lastWrite = 0;
      const heartbeat = setInterval(() => void save(status, RUNNING_TTL_SECONDS), timing.heartbeatMs).unref();
      const finish = (change: Partial<JobStatus>) => {
        clearInterval(heartbeat);
        return save(Object.assign(status, change, { finishedAt: new Date().toISOString() }), FINISHED_TTL_SECONDS);
      };
      const progress: JobProgress = {
        total: (n) => void save(Object.assign(status, { total: n }), RUNNING_TTL_SECONDS),
        done: (n) => {
          status.done = n;
          if (Date.now() - lastWrite < WRITE_EVERY_MS) return;
          lastWrite = Date.now();
          void save(status, RUNNING_TTL_SECONDS);
        },
      };
      void work(progress).then(
        (report) => finish({ state: 'done', done: doneOf(report), report }),
        (err: unknown) => finish({ state: 'failed', error: (err as Error).message ?? String(err) }),
      );
      return status;
    },
    /** A job's status, from whichever process runs it; undefined once expired or for an unknown id. */
    async get(id: string): Promise<JobStatus | undefined> {
      if (!ID_SHAPE.test(id)) return undefined;
      const raw = await redis.get(keyOf(id));
      return raw ? (JSON.parse(raw) as JobStatus) : undefined;
    },
  };
}

export type ConsoleJobs = ReturnType<typeof createConsoleJobs>;
