/** Stable error codes; the GraphQL edge copies them to `extensions.code`, so never rename one. */
export type ErrorCode =
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'BAD_USER_INPUT'
  | 'SEASON_NOT_FOUND'
  | 'SEASON_CLOSED'
  | 'SEASON_NOT_STARTED'
  | 'POINTS_OUT_OF_RANGE'
  | 'TIME_OUT_OF_RANGE'
  | 'RATE_LIMITED'
  | 'UNAVAILABLE'
  | 'CONFLICT'
  | 'REBUILD_IN_PROGRESS'
  | 'PLAYER_BLOCKED';

/** An expected, client-facing failure: callers branch on `code` (and `field`), never on `message`. */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

/** Narrows an unknown thrown value to a DomainError. */
export function isDomainError(e: unknown): e is DomainError {
  return e instanceof DomainError;
}
