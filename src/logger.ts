import { pino, type Logger } from 'pino';

export type { Logger };

/** JSON logs on stdout. GraphQL variables are never logged: they may hold player names. */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'ladder' } });
}
