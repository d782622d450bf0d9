// What every command of the CLI shares: its shape, argument parsing (node:util parseArgs),
// usage errors, and running on the database or on the service's wiring.
import { userInfo } from 'node:os';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { App } from '../app/app.js';
import type { Config } from '../config.js';
import { createLogger } from '../logger.js';
import { createProgressBar } from './progress-bar.js';

/** Bad invocation: exit code 2 and the usage text. */
export class UsageError extends Error {}

export interface Context {
  /** Loaded on first use, so `help` and usage errors need no valid environment. */
  config(): Config;
  /** One line on stdout. */
  out(line: string): void;
}

export interface Command {
  args: string;
  summary: string;
  /**
   * The audit trail's action for this command (main.ts records each run with its outcome); unset
   * for reads, and for commands whose service writes its own, richer row (seasons close, players).
   */
  audit?: string;
  run(argv: string[], ctx: Context): Promise<void>;
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** parseArgs in strict mode, its errors turned into usage errors, with exactly `positionals` positionals. */
export function parse<O extends Options>(argv: string[], options: O, positionals = 0) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: true });
  } catch (err) {
    // parseArgs throws TypeErrors coded ERR_PARSE_ARGS_*: all of them are the caller's mistake.
    if ((err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) throw new UsageError((err as Error).message);
    throw err;
  }
  if (parsed.positionals.length !== positionals) {
    throw new UsageError(`expected ${positionals} argument(s), got ${parsed.positionals.length}`);
  }
  return parsed;
}

/** Runs `fn` with the service's wiring but no role started: clients only, closed afterwards. */
export async function withApp<T>(config: Config, fn: (app: App) => Promise<T>): Promise<T> {
  // Silent: stdout carries the report; failures reach the operator as thrown errors.
  // Loaded here, not at the top: `--help`, usage errors and the `keys` commands need none of the
  // service's modules (seconds of start-up on a busy machine).
  const { buildApp } = await import('../app/app.js');
  const app = buildApp(config, { roles: [], logger: createLogger('silent') });
  try {
    return await fn(app);
  } finally {
    await app.stop();
  }
}

/** A positive int4 from an option, or a usage error naming it. */
export function positiveInt(name: string, raw: string | undefined, max = 2 ** 31 - 1): number {
  if (raw === undefined) throw new UsageError(`--${name} is required`);
  const v = /^[1-9]\d{0,9}$/.test(raw) ? Number(raw) : NaN;
  if (!(v <= max)) throw new UsageError(`--${name} must be an integer in 1..${max}, got "${raw}"`);
  return v;
}

/** Runs `job` with a progress bar on stderr towards the season's live board members. */
export async function withProgress<T>(
  app: App,
  label: string,
  seasonId: number,
  job: (tick: (n: number) => void) => Promise<T>,
  done: (r: T) => number,
): Promise<T> {
  const bar = createProgressBar({
    label,
    total: await app.boards.liveMembers(seasonId),
    write: (s) => process.stderr.write(s),
    now: Date.now,
  });
  try {
    const result = await job((n) => bar.update(n));
    bar.finish(done(result));
    return result;
  } catch (err) {
    bar.abandon();
    throw err;
  }
}

/** The operator's login name, for the audit log. */
export function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown user'; // no passwd entry (some containers)
  }
}

/** The options every `players` command shares; the player id itself is checked by the service. */
export function playerArgs(values: {
  season?: string | undefined;
  player?: string | undefined;
  reason?: string | undefined;
}) {
  const seasonId = positiveInt('season', values.season);
  if (values.player === undefined) throw new UsageError('--player is required');
  const reason = values.reason?.trim();
  if (!reason) throw new UsageError('--reason is required: it goes to the audit log');
  return { seasonId, playerId: values.player, reason, actor: `cli:${osUser()}` };
}

export const playerOptions = {
  season: { type: 'string' },
  player: { type: 'string' },
  reason: { type: 'string' },
} as const;
