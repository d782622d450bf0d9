// The local Redis Cluster (scripts/redis-cluster.sh: 3 masters + 3 replicas on 7000-7005), started
// on first use so CI, where only PostgreSQL and Redis run, needs nothing more. Idempotent: test files
// running side by side share it (the script takes a lock). The global teardown stops it when the run
// started it (global-setup.ts).
import { execFile } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import { clusterUrl } from '../../src/config.js';

const run = promisify(execFile);
const script = new URL('../../scripts/redis-cluster.sh', import.meta.url).pathname;
const BASE = Number(process.env.REDIS_CLUSTER_BASE_PORT ?? 7000);

/** The cluster's seed nodes, `127.0.0.1:7000,...`. */
export const CLUSTER_NODES = Array.from({ length: 6 }, (_, i) => `127.0.0.1:${BASE + i}`).join(',');

/** Starts the cluster when needed; returns the `redisUrl` setting that reaches it. */
export async function ensureRedisCluster(): Promise<string> {
  await run('bash', [script, 'up'], { timeout: 60_000 });
  return clusterUrl(CLUSTER_NODES);
}

/** Whether the shared cluster's first node accepts connections (the script starts all six together). */
export function redisClusterRunning(): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port: BASE });
    socket.setTimeout(2_000);
    const done = (up: boolean) => {
      socket.destroy();
      resolve(up);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

/** Stops the shared cluster's nodes; their data stays under .stack/, so the next `up` is quick. */
export async function stopRedisCluster(): Promise<void> {
  await run('bash', [script, 'down'], { timeout: 60_000 });
}

/**
 * A cluster of the test's own on ports base..base+5 (its data under .stack/redis-cluster-<base>/),
 * for a test that kills nodes: the shared cluster is used by other test files at the same time.
 * Whatever a crashed earlier run left there is removed first. `down` stops it and deletes its data.
 */
export async function startPrivateCluster(base: number, nodeTimeoutMs: number) {
  const env = {
    ...process.env,
    REDIS_CLUSTER_BASE_PORT: String(base),
    REDIS_CLUSTER_NODE_TIMEOUT_MS: String(nodeTimeoutMs),
  };
  const down = () => run('bash', [script, 'down', '--purge'], { timeout: 60_000, env });
  await down();
  await run('bash', [script, 'up'], { timeout: 60_000, env });
  return { nodes: Array.from({ length: 6 }, (_, i) => `127.0.0.1:${base + i}`).join(','), down };
}
