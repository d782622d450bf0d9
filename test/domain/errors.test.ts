import { describe, expect, it } from 'vitest';
import {
  badInput,
  conflict,
  DomainError,
  forbidden,
  playerBlocked,
  pointsOutOfRange,
  rateLimited,
  rebuildInProgress,
  seasonClosed,
  seasonNotFound,
  seasonNotStarted,
  timeOutOfRange,
  unauthenticated,
  unavailable,
} from '../../src/domain/errors.js';

describe('error constructors', () => {
  it.each([
    [badInput('limit', 'limit must be 1..1000'), 'BAD_USER_INPUT', 'limit', 'limit must be 1..1000'],
    [unauthenticated('malformed API key'), 'UNAUTHENTICATED', undefined, 'malformed API key'],
    [forbidden('this API key lacks scope admin'), 'FORBIDDEN', undefined, 'this API key lacks scope admin'],
    [seasonNotFound(7), 'SEASON_NOT_FOUND', 'seasonId', 'season 7 does not exist'],
    [seasonClosed(7), 'SEASON_CLOSED', 'seasonId', 'season 7 is closed'],
    [seasonClosed(7, 'is closed and final'), 'SEASON_CLOSED', 'seasonId', 'season 7 is closed and final'],
    [seasonNotStarted(7), 'SEASON_NOT_STARTED', 'seasonId', 'season 7 has not started'],
    [pointsOutOfRange('points', 'too many'), 'POINTS_OUT_OF_RANGE', 'points', 'too many'],
    [timeOutOfRange('endedAt', 'too late'), 'TIME_OUT_OF_RANGE', 'endedAt', 'too late'],
    [rateLimited('slow down'), 'RATE_LIMITED', undefined, 'slow down'],
    [unavailable('retry'), 'UNAVAILABLE', undefined, 'retry'],
    [conflict('matchId', 'already submitted'), 'CONFLICT', 'matchId', 'already submitted'],
    [rebuildInProgress(7), 'REBUILD_IN_PROGRESS', undefined, 'a rebuild of season 7 is already running'],
    [playerBlocked(7, ['1', '2']), 'PLAYER_BLOCKED', 'playerId', 'player 1, 2 is blocked in season 7'],
  ])('%#: %s', (error, code, field, message) => {
    expect(error).toBeInstanceOf(DomainError);
    expect({ code: error.code, field: error.field, message: error.message }).toEqual({ code, field, message });
  });

  it('keeps the cause of an UNAVAILABLE for the logs', () => {
    const cause = new Error('connection refused');
    expect(unavailable('retry', cause).cause).toBe(cause);
    expect('cause' in unavailable('retry')).toBe(false);
  });
});
