// The local Redis Cluster (scripts/redis-cluster.sh: 3 masters + 3 replicas on 7000-7005), started
// on first use so CI, where only PostgreSQL and Redis run, needs nothing more. Idempotent: test files
// running side by side share it (the script takes a lock).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { clusterUrl } from '../../src/redis/client.js';

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
