// Where the CPU goes: CPU seconds used by this Node process, PostgreSQL, Redis and the Kafka broker
// during a scenario, read from /proc (Linux only; elsewhere every figure is 0). On a machine
// running all four on a few cores, this says which one a scenario waits on better than wall time does.
// sampleTree/treeSeconds do the same for one process and its descendants (a server and its
// cluster workers).
import { readFileSync, readdirSync } from 'node:fs';

type CpuGroup = 'node' | 'pg' | 'redis' | 'kafka';

/** What the sampler must recognise: our database's backends, our Redis (by port). */
export interface CpuTargets {
  database: string;
  redisPort: string;
}

/** A point in time: per-process CPU ticks, this process's CPU, and the machine's busy time. */
export interface CpuSample {
  procs: Map<string, { group: CpuGroup; ticks: number }>;
  nodeSeconds: number;
  machineSeconds: number;
}

/** CPU seconds per group over an interval; `other` is what the rest of the machine used. */
export type CpuUse = Record<CpuGroup | 'other', number>;

const TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux build Node supports

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined; // the process exited between readdir and read
  }
}

/**
 * Which group a process belongs to. Other engineers' tests share these servers and start their
 * own redis-server processes, so: PostgreSQL backends of our database plus the shared background
 * processes (WAL writer, checkpointer...), the redis-server on our port, the Kafka broker.
 */
function groupOf(comm: string, cmdline: string, t: CpuTargets): CpuGroup | undefined {
  if (comm === 'postgres') {
    if (cmdline.includes(` ${t.database} `) || cmdline.endsWith(` ${t.database}`)) return 'pg';
    // A client backend ("user db 127.0.0.1(port) state") of another database is someone else's.
    return /\(\d+\)|\[local\]/.test(cmdline) ? undefined : 'pg';
  }
  if (comm === 'redis-server') return new RegExp(`:${t.redisPort}\\b`).test(cmdline) ? 'redis' : undefined;
  if (comm === 'java' && cmdline.includes('kafka.Kafka')) return 'kafka';
  return undefined;
}

/** Busy CPU seconds of all cores since boot: /proc/stat's first line minus idle and iowait. */
function machineBusy(): number {
  const line = read('/proc/stat')?.split('\n')[0];
  if (!line) return 0;
  // cpu user nice system idle iowait irq softirq steal guest guest_nice (guest is inside user)
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) / TICKS_PER_SECOND;
}

/** CPU so far of every process of interest (utime + stime; children's time is someone else's). */
export function sampleCpu(targets: CpuTargets): CpuSample {
  const usage = process.cpuUsage();
  const sample: CpuSample = {
    procs: new Map(),
    nodeSeconds: (usage.user + usage.system) / 1e6,
    machineSeconds: machineBusy(),
  };
  let pids: string[] = [];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid);
  } catch {
    return sample;
  }
  for (const pid of pids) {
    const stat = read(`/proc/${pid}/stat`);
    if (!stat) continue;
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    if (comm !== 'postgres' && comm !== 'redis-server' && comm !== 'java') continue;
    const group = groupOf(comm, (read(`/proc/${pid}/cmdline`) ?? '').replaceAll('\0', ' '), targets);
    if (!group) continue;
    // Fields after "(comm) ": state is [0]; utime and stime are [11] and [12].
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    sample.procs.set(pid, { group, ticks: Number(f[11]) + Number(f[12]) });
  }
  return sample;
}

/**
 * CPU seconds per group between two samples. Per process, so a process that exited in between
 * (a closed pool connection) drops out instead of making a group's total negative; new ones
 * count from zero. Sample while the scenario's connections are still open.
 */
export function cpuDelta(before: CpuSample, after: CpuSample): CpuUse {
  const use: CpuUse = { node: after.nodeSeconds - before.nodeSeconds, pg: 0, redis: 0, kafka: 0, other: 0 };
  for (const [pid, p] of after.procs) {
    use[p.group] += (p.ticks - (before.procs.get(pid)?.ticks ?? 0)) / TICKS_PER_SECOND;
  }
  const ours = use.node + use.pg + use.redis + use.kafka;
  use.other = Math.max(0, after.machineSeconds - before.machineSeconds - ours);
  return use;
}

/** CPU ticks so far of a process and all its descendants (a server's cluster workers), by pid. */
export type TreeSample = Map<string, number>;

/** utime + stime of `root` and every process below it, found through the parent pids in /proc. */
export function sampleTree(root: number): TreeSample {
  const parentOf = new Map<string, string>();
  const ticksOf = new Map<string, number>();
  let pids: string[] = [];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return new Map();
  }
  for (const pid of pids) {
    const stat = read(`/proc/${pid}/stat`);
    if (!stat) continue;
    // Fields after "(comm) ": state [0], ppid [1], utime [11], stime [12].
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    parentOf.set(pid, f[1]!);
    ticksOf.set(pid, Number(f[11]) + Number(f[12]));
  }
  const sample: TreeSample = new Map();
  const queue = [String(root)];
  while (queue.length > 0) {
    const pid = queue.pop()!;
    if (!ticksOf.has(pid) || sample.has(pid)) continue;
    sample.set(pid, ticksOf.get(pid)!);
    for (const [child, parent] of parentOf) if (parent === pid) queue.push(child);
  }
  return sample;
}

/** CPU seconds a process tree used between two samples; per pid, as in cpuDelta. */
export function treeSeconds(before: TreeSample, after: TreeSample): number {
  let ticks = 0;
  for (const [pid, t] of after) ticks += t - (before.get(pid) ?? 0);
  return ticks / TICKS_PER_SECOND;
}
