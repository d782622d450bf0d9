// The operator's command line: `npm run cli -- <command> [options]`.
// To add a command, add an entry to `commands`; it gets its arguments and a context.
import { userInfo } from 'node:os';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { loadConfig, type Config } from '../config.js';
import { isDomainError } from '../domain/errors.js';
import { createApiKeysRepo } from '../postgres/api-keys-repo.js';
import { createPostgres, migrateDatabase, type Db } from '../postgres/client.js';
import { createApiKey, SCOPES } from '../service/api-keys.js';
import { buildApp, type App } from '../app/app.js';
import { createLogger } from '../logger.js';
import { createProgressBar } from './progress-bar.js';
import { rebuildReportLines, reconcileReportLines } from './report-text.js';
import { openExportSink } from './export-output.js';
import { createFinalStandingsExport } from '../postgres/final-standings-export.js';
import { blockReportLine, removalReportLines } from './player-report-text.js';
import { exportFinalStandings, parseExportFilter } from '../service/export-final-standings.js';

/** Bad invocation: exit code 2 and the usage text. */
class UsageError extends Error {}

interface Context {
  /** Loaded on first use, so `help` and usage errors need no valid environment. */
  config(): Config;
  /** One line on stdout. */
  out(line: string): void;
}

interface Command {
  args: string;
  summary: string;
  run(argv: string[], ctx: Context): Promise<void>;
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** parseArgs in strict mode, its errors turned into usage errors, with exactly `positionals` positionals. */
function parse<O extends Options>(argv: string[], options: O, positionals = 0) {
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

/** Runs `fn` on a migrated database, so every command works on a fresh one. */
async function withDb<T>(config: Config, fn: (db: Db) => Promise<T>): Promise<T> {
  await migrateDatabase(config.databaseUrl);
  const pg = createPostgres(config.databaseUrl, 1);
  try {
    return await fn(pg.db);
  } finally {
    await pg.close();
  }
}

/** Runs `fn` with the service's wiring but no role started: clients only, closed afterwards. */
async function withApp<T>(config: Config, fn: (app: App) => Promise<T>): Promise<T> {
  // Silent: stdout carries the report; failures reach the operator as thrown errors.
  const app = buildApp(config, { roles: [], logger: createLogger('silent') });
  try {
    return await fn(app);
  } finally {
    await app.stop();
  }
}

/** A positive int4 from an option, or a usage error naming it. */
function positiveInt(name: string, raw: string | undefined, max = 2 ** 31 - 1): number {
  if (raw === undefined) throw new UsageError(`--${name} is required`);
  const v = /^[1-9]\d{0,9}$/.test(raw) ? Number(raw) : NaN;
  if (!(v <= max)) throw new UsageError(`--${name} must be an integer in 1..${max}, got "${raw}"`);
  return v;
}

/** Runs `job` with a progress bar on stderr towards the season's live board members. */
async function withProgress<T>(
  app: App,
  label: string,
  seasonId: number,
  job: (tick: (n: number) => void) => Promise<T>,
  done: (r: T) => number,
): Promise<T> {
  const bar = createProgressBar({
    label,
    total: await app.reconcile.liveMembers(seasonId),
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
function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown user'; // no passwd entry (some containers)
  }
}

/** The options every `players` command shares; the player id itself is checked by the service. */
function playerArgs(values: { season?: string | undefined; player?: string | undefined; reason?: string | undefined }) {
  const seasonId = positiveInt('season', values.season);
  if (values.player === undefined) throw new UsageError('--player is required');
  const reason = values.reason?.trim();
  if (!reason) throw new UsageError('--reason is required: it goes to the audit log');
  return { seasonId, playerId: values.player, reason, actor: `cli:${osUser()}` };
}

const playerOptions = { season: { type: 'string' }, player: { type: 'string' }, reason: { type: 'string' } } as const;

const iso = (d: Date | null) => (d ? `${d.toISOString().slice(0, 19)}Z` : '-');

/** Left-aligned columns, two spaces apart. */
function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
}

const commands: Record<string, Command> = {
  'keys create': {
    args: `--name <name> --scope <${SCOPES.join('|')}> [--scope ...]`,
    summary: 'create an API key; its last output line is the key, shown only this once',
    async run(argv, ctx) {
      const { values } = parse(argv, { name: { type: 'string' }, scope: { type: 'string', multiple: true } });
      if (values.name === undefined) throw new UsageError('--name is required');
      if (!values.scope?.length) throw new UsageError('at least one --scope is required');
      const input = { name: values.name, scopes: values.scope };
      const created = await withDb(ctx.config(), (db) => createApiKey(createApiKeysRepo(db), input));
      ctx.out(`created API key ${created.id} "${created.name}" with scopes ${created.scopes.join(', ')}`);
      ctx.out('only its hash is stored: save the key below now, it cannot be shown again');
      // Last line, alone: scripts capture it with `tail -1`.
      ctx.out(created.key);
    },
  },
  'keys list': {
    args: '',
    summary: 'list API keys (never the keys themselves)',
    async run(argv, ctx) {
      parse(argv, {});
      const keys = await withDb(ctx.config(), (db) => createApiKeysRepo(db).list());
      if (keys.length === 0) return ctx.out('no API keys');
      const rows = keys.map((k) => [String(k.id), k.name, k.scopes.join(','), iso(k.createdAt), iso(k.revokedAt)]);
      for (const line of table([['id', 'name', 'scopes', 'created', 'revoked'], ...rows])) ctx.out(line);
    },
  },
  'keys revoke': {
    args: '<id>',
    summary: 'revoke an API key',
    async run(argv, ctx) {
      const arg = parse(argv, {}, 1).positionals[0]!;
      const id = /^[1-9]\d{0,9}$/.test(arg) ? Number(arg) : NaN;
      if (!(id <= 2 ** 31 - 1)) throw new UsageError(`<id> must be a key id from \`keys list\`, got "${arg}"`);
      const revoked = await withDb(ctx.config(), (db) => createApiKeysRepo(db).revoke(id));
      if (!revoked) throw new Error(`no active API key with id ${id}`);
      // The authenticator caches lookups (src/service/api-keys.ts) for API_KEY_CACHE_MS.
      ctx.out(`revoked API key ${id}; running servers refuse it within ${ctx.config().apiKeyCacheMs / 1000} s`);
    },
  },
  'seasons close': {
    args: '--season <id> --reason <text>',
    summary: 'close a season now: apply what Kafka holds, write every final rank, remove its Redis boards (idempotent)',
    async run(argv, ctx) {
      const { values } = parse(argv, { season: { type: 'string' }, reason: { type: 'string' } });
      const seasonId = positiveInt('season', values.season);
      const reason = values.reason?.trim();
      if (!reason) throw new UsageError('--reason is required: it goes to the audit log');
      const r = await withApp(ctx.config(), (app) =>
        app.lifecycle.close(seasonId, { actor: `cli:${osUser()}`, reason }),
      );
      ctx.out(
        r.finalized
          ? `closed season ${seasonId}: ${r.rows} final standings on ${r.boards} boards, ${r.keysRemoved} Redis keys removed, in ${(r.durationMs / 1000).toFixed(1)} s`
          : `season ${seasonId} was already closed and final; ${r.keysRemoved} leftover Redis keys removed`,
      );
    },
  },
  rebuild: {
    args: '--season <id>',
    summary: "rebuild a season's Redis boards from PostgreSQL (progress on stderr, report on stdout)",
    async run(argv, ctx) {
      const seasonId = positiveInt('season', parse(argv, { season: { type: 'string' } }).values.season);
      const report = await withApp(ctx.config(), (app) =>
        withProgress(
          app,
          'rebuild',
          seasonId,
          (tick) => app.rebuild(seasonId, tick),
          (r) => r.members,
        ),
      ).catch((err: unknown) => {
        if (!isDomainError(err) || err.code !== 'REBUILD_IN_PROGRESS') throw err;
        // The marker of a crashed rebuild lives MARKER_TTL_MS (src/redis/board-rebuilder.ts).
        throw new Error(
          `season ${seasonId} is already being rebuilt (REBUILD_IN_PROGRESS): one rebuild per season at a time. ` +
            'Wait for it to finish; the lock of a crashed rebuild expires within 60 s.',
        );
      });
      for (const line of rebuildReportLines(report)) ctx.out(line);
    },
  },
  reconcile: {
    args: '--season <id> [--repair] [--page-size <n>]',
    summary: "compare a season's Redis boards with PostgreSQL; --repair writes PostgreSQL's values over the drift",
    async run(argv, ctx) {
      const { values } = parse(argv, {
        season: { type: 'string' },
        repair: { type: 'boolean' },
        'page-size': { type: 'string' },
      });
      const seasonId = positiveInt('season', values.season);
      const pageSize =
        values['page-size'] === undefined ? undefined : positiveInt('page-size', values['page-size'], 100_000);
      const report = await withApp(ctx.config(), (app) =>
        withProgress(
          app,
          'reconcile',
          seasonId,
          (tick) => app.reconcile.run(seasonId, { repair: values.repair ?? false, pageSize, onProgress: tick }),
          (r) => r.total.pgCount,
        ),
      );
      for (const line of reconcileReportLines(report)) ctx.out(line);
    },
  },
  'players remove': {
    args: '--season <id> --player <id> [--match <uuid>] --reason <text> [--block]',
    summary:
      "remove a player's results from a season (all, or one match) and recompute every board; --block refuses their later results",
    async run(argv, ctx) {
      const { values } = parse(argv, { ...playerOptions, match: { type: 'string' }, block: { type: 'boolean' } });
      const input = { ...playerArgs(values), matchId: values.match ?? null, block: values.block ?? false };
      // Waits for the settle pass (a few seconds): this process is the only one that can run it.
      const report = await withApp(ctx.config(), (app) => app.playerAdmin.removeAndSettle(input));
      for (const line of removalReportLines(report)) ctx.out(line);
    },
  },
  'players block': {
    args: '--season <id> --player <id> --reason <text>',
    summary: "refuse a player's later results in a season (running servers within BLOCKED_PLAYERS_CACHE_MS)",
    async run(argv, ctx) {
      const input = playerArgs(parse(argv, playerOptions).values);
      ctx.out(blockReportLine(await withApp(ctx.config(), (app) => app.playerAdmin.block(input))));
    },
  },
  'players unblock': {
    args: '--season <id> --player <id> --reason <text>',
    summary: 'lift a block (results refused meanwhile stay in the DLQ)',
    async run(argv, ctx) {
      const input = playerArgs(parse(argv, playerOptions).values);
      ctx.out(blockReportLine(await withApp(ctx.config(), (app) => app.playerAdmin.unblock(input))));
    },
  },
  export: {
    args: '--season <id> [--window SEASON|DAY|WEEK] [--period <yyyy-mm-dd|YYYY-Www>] [--format csv|ndjson] [--out <file>]',
    summary: "write a closed season's final standings (every board, or one window or period) to stdout or --out",
    async run(argv, ctx) {
      const opts = {
        season: { type: 'string' },
        window: { type: 'string' },
        period: { type: 'string' },
        format: { type: 'string' },
        out: { type: 'string' },
      } as const;
      const { values } = parse(argv, opts);
      const seasonId = positiveInt('season', values.season);
      const format = values.format ?? 'csv';
      if (format !== 'csv' && format !== 'ndjson')
        throw new UsageError(`--format must be csv or ndjson, got "${format}"`);
      const input = { seasonId, filter: parseExportFilter(values.window, values.period), format } as const;
      const sink = openExportSink(values.out);
      const { rows } = await withApp(ctx.config(), (app) =>
        exportFinalStandings(
          { seasonById: (id) => app.seasonsRepo.get(id), source: createFinalStandingsExport(app.pg.sql) },
          input,
          (c) => sink.write(c),
        ),
      ).catch(async (err: unknown) => {
        await sink.abort();
        throw err;
      });
      await sink.commit();
      // stdout may be the data itself: the summary goes there only when the data went to a file.
      if (values.out) ctx.out(`exported ${rows} rows of season ${seasonId} to ${values.out}`);
      else process.stderr.write(`exported ${rows} rows of season ${seasonId}\n`);
    },
  },
};

function usage(): string {
  const lines = Object.entries(commands).map(([name, c]) => `  ${`${name} ${c.args}`.trimEnd()}\n      ${c.summary}`);
  return `usage: npm run cli -- <command> [options]\n\ncommands:\n${lines.join('\n')}\n`;
}

/** Finds the command named by the first one or two words; the rest are its arguments. */
function resolve(argv: string[]): { command: Command; rest: string[] } {
  for (const words of [2, 1]) {
    const command = commands[argv.slice(0, words).join(' ')];
    if (command) return { command, rest: argv.slice(words) };
  }
  const group = Object.keys(commands)
    .filter((n) => n.startsWith(`${argv[0]} `))
    .map((n) => n.split(' ')[1]);
  if (group.length > 0) throw new UsageError(`"${argv[0]}" needs one of: ${group.join(', ')}`);
  throw new UsageError(argv.length === 0 ? 'no command given' : `unknown command "${argv[0]}"`);
}

/** Runs one command line; returns the exit code: 0 done, 1 failed, 2 bad usage. */
async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'help' || argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(usage());
    return 0;
  }
  let config: Config | undefined;
  const ctx: Context = {
    config: () => (config ??= loadConfig()),
    out: (line) => process.stdout.write(`${line}\n`),
  };
  try {
    const { command, rest } = resolve(argv);
    await command.run(rest, ctx);
    return 0;
  } catch (err) {
    const badInput = err instanceof UsageError || (isDomainError(err) && err.code === 'BAD_USER_INPUT');
    process.stderr.write(`error: ${(err as Error).message}\n`);
    if (!badInput) return 1;
    process.stderr.write(`\n${usage()}`);
    return 2;
  }
}

process.exitCode = await main(process.argv.slice(2));
