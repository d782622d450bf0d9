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

// One constructor per code, so that a code's message and field are written once. The field names
// the input at fault the same way everywhere (a season is always `seasonId`).

export function badInput(field: string | undefined, message: string): DomainError {
  return new DomainError('BAD_USER_INPUT', message, field);
}

export function unauthenticated(message: string): DomainError {
  return new DomainError('UNAUTHENTICATED', message);
}

export function forbidden(message: string): DomainError {
  return new DomainError('FORBIDDEN', message);
}

export function seasonNotFound(seasonId: number | string): DomainError {
  return new DomainError('SEASON_NOT_FOUND', `season ${seasonId} does not exist`, 'seasonId');
}

/** `detail` says how it is closed: "is closed" by default. */
export function seasonClosed(seasonId: number, detail = 'is closed'): DomainError {
  return new DomainError('SEASON_CLOSED', `season ${seasonId} ${detail}`, 'seasonId');
}

export function seasonNotStarted(seasonId: number): DomainError {
  return new DomainError('SEASON_NOT_STARTED', `season ${seasonId} has not started`, 'seasonId');
}

export function pointsOutOfRange(field: string, message: string): DomainError {
  return new DomainError('POINTS_OUT_OF_RANGE', message, field);
}

export function timeOutOfRange(field: string, message: string): DomainError {
  return new DomainError('TIME_OUT_OF_RANGE', message, field);
}

export function rateLimited(message: string): DomainError {
  return new DomainError('RATE_LIMITED', message);
}

/** Retryable: a dependency did not answer. `cause` keeps the underlying error for the logs. */
export function unavailable(message: string, cause?: unknown): DomainError {
  const e = new DomainError('UNAVAILABLE', message);
  if (cause !== undefined) e.cause = cause;
  return e;
}

export function conflict(field: string | undefined, message: string): DomainError {
  return new DomainError('CONFLICT', message, field);
}

/** `detail` says what waits on it: "is already running" by default. */
export function rebuildInProgress(seasonId: number, detail = 'is already running'): DomainError {
  return new DomainError('REBUILD_IN_PROGRESS', `a rebuild of season ${seasonId} ${detail}`);
}

export function playerBlocked(seasonId: number, playerIds: readonly string[]): DomainError {
  return new DomainError(
    'PLAYER_BLOCKED',
    `player ${playerIds.join(', ')} is blocked in season ${seasonId}`,
    'playerId',
  );
}
