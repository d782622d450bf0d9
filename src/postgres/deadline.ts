import { unavailable } from '../domain/errors.js';

/** Error codes of postgres.js and Node that mean PostgreSQL is not reachable now. */
const UNREACHABLE = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * Not reachable, or refusing work for now: SQLSTATE class 08 (connection), 57P01-03 (shutting
 * down, starting), 53300 (too many connections). Drizzle wraps the driver's error as `cause`.
 */
export function isUnreachable(err: unknown): boolean {
  for (
    let e = err as { code?: unknown; cause?: unknown } | null, depth = 0;
    e && depth < 5;
    e = e.cause as typeof e, depth++
  ) {
    const code = e.code;
    if (
      typeof code === 'string' &&
      (UNREACHABLE.has(code) || code.startsWith('08') || /^57P0[1-3]$/.test(code) || code === '53300')
    )
      return true;
  }
  return false;
}

export type Deadline = <T>(start: () => PromiseLike<T>) => Promise<T>;

/**
 * Bounds a request's wait on PostgreSQL: past `ms`, or when PostgreSQL is not reachable, the
 * caller gets UNAVAILABLE (retryable) instead of a hang or an internal error. The query itself
 * is not cancelled (that needs PostgreSQL too); it ends when its connection does. So that an
 * outage does not pile up queries behind it (the client's queue would then hold up every request
 * after PostgreSQL is back, each timing out and retried into the same queue):
 * - after such a failure, calls fail at once for the next `ms`, without starting their work (a
 *   request making several calls, or executed twice, see read-path.ts, answers within one deadline);
 * - at most `maxInFlight` calls run at once, counted until their work settles, not until their
 *   deadline: past it, UNAVAILABLE at once.
 */
export function createDeadline(ms: number, opts: { maxInFlight?: number; now?: () => number } = {}): Deadline {
  const now = opts.now ?? Date.now;
  const maxInFlight = opts.maxInFlight ?? Infinity;
  let downUntil = 0;
  let inFlight = 0;
  const down = (message: string) => {
    downUntil = now() + ms;
    return unavailable(message);
  };
  return <T>(start: () => PromiseLike<T>) => {
    if (now() < downUntil) return Promise.reject(unavailable('PostgreSQL is not answering; retry later'));
    if (inFlight >= maxInFlight) return Promise.reject(unavailable('PostgreSQL is busy; retry later'));
    inFlight++;
    let work: Promise<T>;
    try {
      work = Promise.resolve(start());
    } catch (err) {
      inFlight--;
      return Promise.reject(err as Error);
    }
    const settled = () => inFlight--;
    work.then(settled, settled);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(down(`PostgreSQL did not answer within ${ms} ms; retry later`)), ms);
    });
    const answer = work.catch((err: unknown) => {
      throw isUnreachable(err) ? down('PostgreSQL is not reachable; retry later') : err;
    });
    // Past the deadline the work may still fail: that failure is nobody's to handle.
    answer.catch(() => {});
    return Promise.race([answer, late]).finally(() => clearTimeout(timer));
  };
}

/** `target` (a repository: its methods return promises) with every method bounded by `deadline`. */
export function bounded<T extends object>(target: T, deadline: Deadline): T {
  return new Proxy(target, {
    get(t, prop) {
      const value: unknown = Reflect.get(t, prop);
      if (typeof value !== 'function') return value;
      // Every method is taken to return a promise (a repository): it is started only if the
      // deadline lets it (not while PostgreSQL is marked down, nor past the calls in flight).
      return (...args: unknown[]) => deadline(() => value.apply(t, args) as PromiseLike<unknown>);
    },
  });
}
