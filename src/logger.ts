import { pino, type Logger } from 'pino';
import { traceFields } from './tracing.js';

export type { Logger };

/**
 * JSON logs on stdout. GraphQL variables are never logged: they may hold player names. A line
 * written under a span carries its `trace_id` and `span_id` (tracing.ts).
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, base: { service: 'ladder' }, mixin: traceFields }, destination);
}
