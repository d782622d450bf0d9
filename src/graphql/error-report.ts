import { GraphQLError } from 'graphql';
import { isDomainError } from '../domain/errors.js';
import type { Logger } from '../logger.js';

/** The code a client gets for `error` (see errors.ts maskError). */
export function codeOf(error: unknown): string {
  const original = error instanceof GraphQLError ? error.originalError : error;
  if (isDomainError(original)) return original.code;
  if (error instanceof GraphQLError && (!error.originalError || error.originalError instanceof GraphQLError)) {
    const code = error.extensions?.code;
    return typeof code === 'string' && code !== 'GRAPHQL_VALIDATION_FAILED' && code !== 'GRAPHQL_PARSE_FAILED'
      ? code
      : 'BAD_USER_INPUT';
  }
  return 'INTERNAL_SERVER_ERROR';
}

/** Codes that report the server's state rather than a client's mistake. */
const SERVER_SIDE = new Set(['UNAVAILABLE', 'INTERNAL_SERVER_ERROR']);

/**
 * Where yoga reports the errors it masks. A client's mistake (UNAUTHENTICATED, FORBIDDEN,
 * RATE_LIMITED, BAD_USER_INPUT, ...) is an answer, not a fault of the service: one probe made
 * 806 error lines. Those are logged at info, at most one line per code every `sampleMs` (with how
 * many were left out), the rest at debug; UNAVAILABLE the same at warn; anything unexpected at
 * error, always.
 */
export function createErrorLog(deps: { log: Logger; sampleMs?: number; now?(): number }) {
  const sampleMs = deps.sampleMs ?? 10_000;
  const now = deps.now ?? Date.now;
  const lastLine = new Map<string, { at: number; leftOut: number }>();
  return (error: unknown): void => {
    const code = codeOf(error);
    const err = error instanceof Error ? error : new Error(String(error));
    if (code === 'INTERNAL_SERVER_ERROR') {
      deps.log.error({ err }, err.message);
      return;
    }
    const last = lastLine.get(code);
    if (last && now() - last.at < sampleMs) {
      last.leftOut++;
      deps.log.debug({ code, err: err.message }, 'request refused');
      return;
    }
    lastLine.set(code, { at: now(), leftOut: 0 });
    const line = { code, err: err.message, ...(last?.leftOut ? { leftOut: last.leftOut } : {}) };
    if (SERVER_SIDE.has(code)) deps.log.warn(line, 'request refused');
    else deps.log.info(line, 'request refused');
  };
}

/** `code` as a metric label: codes are few, but a label must stay bounded whatever a plugin sends. */
export function codeLabel(code: string, seen: Set<string>, max = 32): string {
  if (seen.has(code)) return code;
  if (!/^[A-Z_]{1,40}$/.test(code) || seen.size >= max) return 'OTHER';
  seen.add(code);
  return code;
}
