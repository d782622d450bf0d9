// Where the CPU goes: CPU seconds used by this Node process, PostgreSQL, Redis and the Kafka broker
// during a scenario, read from /proc (Linux only; elsewhere every figure is 0). On a 2-core
// machine running all four, this says which one a scenario waits on better than wall time does.
import { readFileSync, readdirSync } from 'node:fs';

export type CpuGroup = 'node' | 'pg' | 'redis' | 'kafka';
/** CPU seconds per group, and `machine`: busy CPU seconds of the whole machine. */
export type CpuSample = Record<CpuGroup | 'machine', number>;

const TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux build Node supports

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined; // the process exited between readdir and read
  }
}

/**
 * Which group a process belongs to. PostgreSQL: only backends of `database` (other engineers'
 * tests share the server) plus the shared background processes (WAL writer, checkpointer...).
 */
function groupOf(comm: string, cmdline: string, database: string): CpuGroup | undefined {
  if (comm === 'postgres') {
    if (cmdline.includes(` ${database} `) || cmdline.endsWith(` ${database}`)) return 'pg';
    // A client backend ("user db 127.0.0.1(port) state") of another database is someone else's.
    return /\(\d+\)|\[local\]/.test(cmdline) ? undefined : 'pg';
  }
  if (comm === 'redis-server') return 'redis';
  if (comm === 'java' && cmdline.includes('kafka.Kafka')) return 'kafka';
  return undefined;
}

/**
 * CPU seconds so far of each group, live processes only: children's time (cutime) is left out
 * because the postmaster's would include other databases' exited backends. So sample while the
 * scenario's connections are still open.
 */
export function sampleCpu(database: string): CpuSample {
  const usage = process.cpuUsage();
  const out: CpuSample = { node: (usage.user + usage.system) / 1e6, pg: 0, redis: 0, kafka: 0, machine: machineBusy() };
  let pids: string[] = [];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return out;
  }
  for (const pid of pids) {
    const stat = read(`/proc/${pid}/stat`);
    if (!stat) continue;
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const group = groupOf(comm, (read(`/proc/${pid}/cmdline`) ?? '').replaceAll('\0', ' '), database);
    if (!group || group === 'node') continue;
    // Fields after "(comm) ": state is [0]; utime and stime are [11] and [12].
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(f[11]) + Number(f[12]);
    out[group] += ticks / TICKS_PER_SECOND;
  }
  return out;
}

/** Busy CPU seconds of all cores since boot: /proc/stat's first line minus idle and iowait. */
function machineBusy(): number {
  const line = read('/proc/stat')?.split('\n')[0];
  if (!line) return 0;
  // cpu user nice system idle iowait irq softirq steal guest guest_nice (guest is inside user)
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) / TICKS_PER_SECOND;
}

/** CPU seconds per group between two samples; `other` is what the rest of the machine used. */
export function cpuDelta(before: CpuSample, after: CpuSample): CpuSample & { other: number } {
  const d = (k: CpuGroup | 'machine') => after[k] - before[k];
  const ours = d('node') + d('pg') + d('redis') + d('kafka');
  return { node: d('node'), pg: d('pg'), redis: d('redis'), kafka: d('kafka'), machine: d('machine'), other: Math.max(0, d('machine') - ours) };
}
