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

export type Deadline = <T>(work: PromiseLike<T>) => Promise<T>;

/**
 * Bounds a request's wait on PostgreSQL: past `ms`, or when PostgreSQL is not reachable, the
 * caller gets UNAVAILABLE (retryable) instead of a hang or an internal error. The query itself
 * is not cancelled (that needs PostgreSQL too); it ends when its connection does. After such a
 * failure, calls fail at once for the next `ms`: a request making several calls (or executed
 * twice, see read-path.ts) answers within one deadline, and an outage does not pile up queries.
 */
export function createDeadline(ms: number, now: () => number = Date.now): Deadline {
  let downUntil = 0;
  const down = (message: string) => {
    downUntil = now() + ms;
    return unavailable(message);
  };
  return <T>(work: PromiseLike<T>) => {
    if (now() < downUntil) {
      // The work was started by the caller: its own failure, later, must not go unhandled.
      Promise.resolve(work).catch(() => {});
      return Promise.reject(unavailable('PostgreSQL is not answering; retry later'));
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(down(`PostgreSQL did not answer within ${ms} ms; retry later`)), ms);
    });
    const answer = Promise.resolve(work).catch((err: unknown) => {
      throw isUnreachable(err) ? down('PostgreSQL is not reachable; retry later') : err;
    });
    return Promise.race([answer, late]).finally(() => clearTimeout(timer));
  };
}

/** `target` with every method that returns a promise bounded by `deadline`. */
export function bounded<T extends object>(target: T, deadline: Deadline): T {
  return new Proxy(target, {
    get(t, prop) {
      const value: unknown = Reflect.get(t, prop);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const out: unknown = value.apply(t, args);
        return out && typeof (out as PromiseLike<unknown>).then === 'function'
          ? deadline(out as PromiseLike<unknown>)
          : out;
      };
    },
  });
}
