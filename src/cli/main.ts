// The operator's command line: `npm run cli -- <command> [options]`.
// One file per command (src/cli/<command>.ts); to add one, add it to `commands`.
import { loadConfig, type Config } from '../config.js';
import { isDomainError } from '../domain/errors.js';
import { warnOnTypeFetchFailures } from '../app/cli-parts.js';
import type { AuditLog } from '../service/audit-trail.js';
import { osUser, UsageError, type Command, type Context } from './command.js';
import { audit } from './audit.js';
import { exportStandings } from './export.js';
import { historyArchive, historyLoad } from './history-archive.js';
import { keysCreate } from './keys-create.js';
import { keysList } from './keys-list.js';
import { keysRevoke } from './keys-revoke.js';
import { keysRotate } from './keys-rotate.js';
import { playersBlock, playersHide, playersUnblock, playersUnhide } from './players-block.js';
import { playersRemove } from './players-remove.js';
import { rebuild } from './rebuild.js';
import { reconcile } from './reconcile.js';
import { seasonsClose } from './seasons-close.js';
import { seasonsCreate } from './seasons-create.js';

/** Every command by the words that name it, in the order `--help` lists them. */
const commands: Record<string, Command> = {
  'keys create': keysCreate,
  'keys list': keysList,
  'keys revoke': keysRevoke,
  'keys rotate': keysRotate,
  'seasons create': seasonsCreate,
  'seasons close': seasonsClose,
  rebuild,
  reconcile,
  'players remove': playersRemove,
  'players block': playersBlock,
  'players unblock': playersUnblock,
  'players hide': playersHide,
  'players unhide': playersUnhide,
  export: exportStandings,
  'history archive': historyArchive,
  'history load': historyLoad,
  audit,
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

/**
 * Runs an admin command and records it in the audit trail (postgres/audit-log.ts) as `cli:<os
 * user>`, with its options (secrets redacted) and outcome. A record that cannot be written is a
 * warning on stderr: the command's own outcome stands.
 */
async function runAudited(action: string, argv: string[], run: () => Promise<void>, config: () => Config) {
  const options: Record<string, string> = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++)
    if (argv[i]!.startsWith('--')) {
      const [name, inline] = argv[i]!.slice(2).split(/=(.*)/s);
      options[name!] = inline ?? (argv[i + 1]?.startsWith('--') === false ? argv[++i]! : '');
    } else positionals.push(argv[i]!);
  const season = Number(options['season']);
  const [{ withAuditLog }, { audited }] = await Promise.all([
    import('../app/cli-parts.js'),
    import('../service/audit-trail.js'),
  ]);
  const entry = {
    actor: `cli:${osUser()}`,
    action,
    seasonId: Number.isInteger(season) ? season : null,
    reason: 'CLI',
    details: positionals.length > 0 ? { options, arguments: positionals } : { options },
  };
  const log = { record: (r: Parameters<AuditLog['record']>[0]) => withAuditLog(config(), (l) => l.record(r)) };
  await audited(log, entry, run, (err) =>
    process.stderr.write(`warning: not recorded in the audit trail: ${(err as Error).message}\n`),
  );
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
    if (!command.audit) await command.run(rest, ctx);
    else await runAudited(command.audit, rest, () => command.run(rest, ctx), ctx.config);
    return 0;
  } catch (err) {
    const badInput = err instanceof UsageError || (isDomainError(err) && err.code === 'BAD_USER_INPUT');
    process.stderr.write(`error: ${(err as Error).message}\n`);
    // A failed query's message is its SQL: what PostgreSQL said is in its cause.
    const { cause } = err as { cause?: unknown };
    if (cause instanceof Error) process.stderr.write(`cause: ${cause.message}\n`);
    if (!badInput) return 1;
    process.stderr.write(`\n${usage()}`);
    return 2;
  }
}

warnOnTypeFetchFailures((line) => process.stderr.write(line));
process.exitCode = await main(process.argv.slice(2));
