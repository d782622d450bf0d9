// A private PostgreSQL 15 cluster held to a memory limit, for benches whose data must NOT fit in RAM
// (see "Measured facts for the history work" in FINDINGS). The limit is a child memory cgroup (v1):
// it charges the server's page cache as well as its processes, so once the tables and indexes
// outgrow it, reads really go to disk. The system PostgreSQL (127.0.0.1:5432) is never touched.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { readlinkSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);
const BIN = '/usr/local/bin';
const OS_USER = 'postgres'; // initdb and pg_ctl refuse to run as root
const CGROUP_ROOT = '/sys/fs/cgroup/memory';
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export interface PrivatePostgres {
  url: string;
  port: number;
  dataDir: string;
  memoryLimitBytes: number;
  cgroupDir: string; // the memory cgroup the server runs in; gone after stop()
  stop(): Promise<void>;
}

// Commands run from '/': the postgres user cannot read root's working directory.
const run = (cmd: string, args: string[]) => execFileAsync(cmd, args, { cwd: '/' });
/** runuser's argv to run a PostgreSQL binary as the postgres user. */
const asPostgres = (bin: string, ...args: string[]): string[] => ['-u', OS_USER, '--', `${BIN}/${bin}`, ...args];
/** pg_ctl, synchronously: stop() also runs from process.on('exit'), where only sync work is done. */
const pgCtlSync = (...args: string[]) =>
  spawnSync('runuser', asPostgres('pg_ctl', ...args), { cwd: '/', encoding: 'utf8' });

/** This process's memory cgroup, from the `N:memory:/path` line of /proc/self/cgroup. */
function ownMemoryCgroup(): string {
  const path = readFileSync('/proc/self/cgroup', 'utf8').match(/^\d+:(?:[^:]*,)?memory(?:,[^:]*)?:(.*)$/m)?.[1];
  if (path === undefined) throw new Error('no cgroup v1 memory controller in /proc/self/cgroup');
  return CGROUP_ROOT + path.replace(/\/$/, ''); // '/' when at the root
}

/** Empties a cgroup into its parent, then removes it (rmdir fails while it holds a process). */
function removeCgroup(dir: string): void {
  if (!existsSync(dir)) return;
  for (const pid of readFileSync(`${dir}/cgroup.procs`, 'utf8').split('\n').filter(Boolean)) {
    try { writeFileSync(`${dir}/../cgroup.procs`, pid); } catch { /* already exited */ } // prettier-ignore
  }
  rmdirSync(dir);
}

/**
 * Stops a server an earlier, aborted run left on this port: every process in a cgroup named
 * ladder-bench-<port> (whichever parent cgroup that run had) is one of ours, and its cwd is its
 * data directory (the postmaster chdirs there). Matching the cgroup name never matches the system server.
 */
function stopStale(port: number): void {
  const found = new Map<string, string>(); // cgroup dir → data dir
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cg = readFileSync(`/proc/${pid}/cgroup`, 'utf8').match(/:memory:(\S*\/ladder-bench-\d+)$/m)?.[1];
      if (cg?.endsWith(`/ladder-bench-${port}`)) found.set(CGROUP_ROOT + cg, readlinkSync(`/proc/${pid}/cwd`));
    } catch { /* exited meanwhile */ } // prettier-ignore
  }
  for (const [cgroupDir, dataDir] of found) {
    pgCtlSync('-D', dataDir, '-m', 'immediate', '-w', 'stop');
    // pg_ctl cannot stop it when its data dir was deleted under it: then kill what is left.
    const procs = (): string[] => readFileSync(`${cgroupDir}/cgroup.procs`, 'utf8').split('\n').filter(Boolean);
    for (const pid of procs()) try { process.kill(Number(pid), 'SIGKILL'); } catch { /* gone */ } // prettier-ignore
    for (let i = 0; i < 50 && procs().length > 0; i++) spawnSync('sleep', ['0.1']);
    removeCgroup(cgroupDir);
  }
}

export async function startPrivatePostgres(opts: {
  port?: number;
  memoryLimitBytes: number;
  sharedBuffers: string; // e.g. '128MB'
  dataDir?: string; // reuse an existing cluster dir when given and initialised
  keep?: boolean; // stop() leaves the data dir
  settings?: Record<string, string>; // more server settings (-c name=value)
}): Promise<PrivatePostgres> {
  const port = opts.port ?? 55432;
  if (port === 5432) throw new Error('port 5432 is the system PostgreSQL: pick another');
  const dataDir = opts.dataDir ?? `/var/tmp/ladder-bench-pg-${port}`; // a real disk, not tmpfs
  stopStale(port);
  if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true }); // our default dir: start clean
  if (!existsSync(`${dataDir}/PG_VERSION`)) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    await run('chown', [`${OS_USER}:${OS_USER}`, dataDir]);
    await run('runuser', asPostgres('initdb', '-D', dataDir, '-U', 'postgres', '--auth=trust'));
  }

  const cgroupDir = `${ownMemoryCgroup()}/ladder-bench-${port}`;
  removeCgroup(cgroupDir);
  mkdirSync(cgroupDir);
  writeFileSync(`${cgroupDir}/memory.limit_in_bytes`, String(opts.memoryLimitBytes));
  try { writeFileSync(`${cgroupDir}/memory.memsw.limit_in_bytes`, String(opts.memoryLimitBytes)); } catch { /* no swap accounting */ } // prettier-ignore

  // Durability stays at the defaults (fsync, synchronous_commit on); only checkpoints are spaced
  // out so that they do not dominate a short bench. pg_ctl hands -o to a shell: quote the path.
  const settings = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='${dataDir}' \
-c shared_buffers=${opts.sharedBuffers} -c max_wal_size=4GB -c checkpoint_timeout=15min -c max_connections=100 \
${Object.entries(opts.settings ?? {})
  .map(([k, v]) => `-c ${k}=${v}`)
  .join(' ')}`;
  // The shell joins the cgroup first, then becomes pg_ctl: the postmaster and every backend inherit it.
  const start = asPostgres('pg_ctl', '-D', dataDir, '-l', `${dataDir}/server.log`, '-o', settings, '-w', 'start');
  try {
    await run('sh', ['-c', 'echo $$ > "$0" && exec "$@"', `${cgroupDir}/cgroup.procs`, 'runuser', ...start]);
  } catch (err) {
    const log = existsSync(`${dataDir}/server.log`) ? readFileSync(`${dataDir}/server.log`, 'utf8').slice(-2000) : '';
    try { removeCgroup(cgroupDir); } catch { /* best effort */ } // prettier-ignore
    throw new Error(`private PostgreSQL did not start on ${port}: ${String(err)}\n${log}`);
  }

  // Synchronous, so that it also runs from process.on('exit'): a crash or Ctrl-C of the bench must
  // not leave the server running (a SIGKILL can; the next start stops it, see stopStale).
  let stopped = false;
  const stopSync = (): void => {
    if (stopped) return;
    stopped = true;
    process.off('exit', stopSync);
    for (const s of SIGNALS) process.off(s, onSignal);
    const r = pgCtlSync('-D', dataDir, '-m', 'fast', '-w', 'stop');
    removeCgroup(cgroupDir);
    if (!opts.keep) rmSync(dataDir, { recursive: true, force: true });
    if (r.status !== 0) throw new Error(`pg_ctl stop failed: ${r.stderr}`);
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    stopSync();
    // Restore the default action (exit 128+n) unless the bench handles the signal itself.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  process.on('exit', stopSync);
  for (const s of SIGNALS) process.on(s, onSignal);

  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dataDir,
    memoryLimitBytes: opts.memoryLimitBytes,
    cgroupDir,
    stop: async () => stopSync(), // -m fast still writes a shutdown checkpoint: a second or two
  };
}

/** The cgroup's current charge (processes and page cache) and its limit; null once stopped. */
export function memoryCgroupUsage(pg: PrivatePostgres): { usageBytes: number; limitBytes: number } | null {
  try {
    const read = (f: string): number => Number(readFileSync(`${pg.cgroupDir}/${f}`, 'utf8').trim());
    return { usageBytes: read('memory.usage_in_bytes'), limitBytes: read('memory.limit_in_bytes') };
  } catch {
    return null;
  }
}
