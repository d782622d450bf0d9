// The operator's command line: `npm run cli -- <command> [options]`.
// To add a command, add an entry to `commands`; it gets its arguments and a context.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { loadConfig, type Config } from './config.js';
import { isDomainError } from './domain/errors.js';
import { createApiKeysRepo } from './postgres/api-keys-repo.js';
import { createPostgres, migrateDatabase, type Db } from './postgres/client.js';
import { createApiKey, DEFAULT_AUTH_CACHE_TTL_MS, SCOPES } from './service/api-keys.js';

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

const iso = (d: Date | null) => (d ? `${d.toISOString().slice(0, 19)}Z` : '-');

/** Left-aligned columns, two spaces apart. */
function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd());
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
      // The authenticator caches lookups (src/service/api-keys.ts).
      ctx.out(`revoked API key ${id}; running servers refuse it within ${DEFAULT_AUTH_CACHE_TTL_MS / 1000} s`);
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
  const group = Object.keys(commands).filter((n) => n.startsWith(`${argv[0]} `)).map((n) => n.split(' ')[1]);
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
