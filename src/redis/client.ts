import { Cluster, Redis, type ClusterNode, type ClusterOptions, type Command } from 'ioredis';
import { CLUSTER_SCHEME } from '../config.js';
import type { Logger } from '../logger.js';
import { scriptDefinitions } from './scripts.js';

function clusterNodes(url: string): Array<{ host: string; port: number }> {
  return url
    .slice(CLUSTER_SCHEME.length)
    .split(',')
    .map((n) => {
      const [host, port] = n.trim().split(':');
      return { host: host!, port: Number(port ?? 6379) };
    });
}

/**
 * A Redis client with ladder's scripts registered: one server (`redis://...`) or a Redis Cluster
 * (`redis-cluster://h:p,h:p`, from REDIS_CLUSTER_NODES). A command fails after two reconnect
 * attempts instead of queueing forever, so callers see an outage and can retry or answer.
 *
 * The cluster client (ioredis Cluster) answers the same commands and scripts as one server, with
 * every key of one call in one hash slot (keys.ts); typed as Redis so that callers do not branch.
 * What differs is handled here: SCAN runs on every master (scanKeys), `duplicate(options)` makes
 * another cluster client, and the database is always 0.
 */
export function createRedis(url: string, logger?: Logger): Redis {
  // ioredis's `scripts` option: the client and every duplicate of it (they copy the options) answer
  // the scripts' commands.
  const scripts = scriptDefinitions();
  const redis = url.startsWith(CLUSTER_SCHEME)
    ? (new LadderCluster(clusterNodes(url), {
        enableAutoPipelining: false,
        scripts,
        // Reads and writes go to masters: a replica may lag, and board reads must see every write.
        scaleReads: 'master',
        redisOptions: { maxRetriesPerRequest: 2 },
        // While a failed master's replica is promoted, commands wait and are retried (MOVED/CLUSTERDOWN).
        retryDelayOnFailover: 200,
        retryDelayOnClusterDown: 200,
      }) as unknown as Redis)
    : new Redis(url, { maxRetriesPerRequest: 2, enableAutoPipelining: false, scripts });
  // Without a listener ioredis prints every connection error; reconnecting is automatic.
  redis.on('error', (err: Error) => logger?.warn({ err: err.message }, 'redis connection error'));
  return redis;
}

/**
 * A cluster client that also duplicates with one server's signature, `duplicate(options)`: callers
 * hold every client as a Redis and pass options only, which ioredis's own Cluster.duplicate(nodes,
 * options) (redis/ioredis#921, #926) would read as seed nodes and drop. Same seed nodes, this
 * client's options and the new ones; called with an array, it is ioredis's own signature.
 */
class LadderCluster extends Cluster {
  constructor(
    private readonly seeds: ClusterNode[],
    options: ClusterOptions,
  ) {
    super(seeds, options);
  }

  override duplicate(nodesOrOptions: ClusterNode[] | ClusterOptions = [], options: ClusterOptions = {}): Cluster {
    const [nodes, override] = Array.isArray(nodesOrOptions) ? [nodesOrOptions, options] : [[], nodesOrOptions];
    return new LadderCluster(nodes.length > 0 ? nodes : this.seeds, { ...this.options, ...override });
  }
}

/**
 * A connection for many small concurrent commands (the API's reads): the commands of one turn of
 * the event loop leave in one write (its socket corked until the turn's check phase), as ioredis's
 * auto-pipelining would send them, without the Pipeline it builds per turn, which cost more CPU
 * than the commands and kept megabytes alive across each young-generation GC
 * (docs/benchmarks.md#what-the-measurements-decided).
 * A cluster client (one socket per master) auto-pipelines instead.
 */
export function turnBatchedConnection(redis: Redis): Redis {
  if (isCluster(redis)) return redis.duplicate({ enableAutoPipelining: true, lazyConnect: true });
  return new TurnBatchedRedis({ ...redis.options, lazyConnect: true });
}

/**
 * One server's client whose socket is corked from the first command of a turn to the turn's check
 * phase. Every command of an ioredis client, its scripts' EVALSHA and the offline queue flushed
 * once it is ready included, leaves through the public sendCommand(command, stream): overridden
 * here, it corks, then hands the command on unchanged (test/redis/turn-batched.int.test.ts pins
 * both: the route, and one write per turn).
 */
class TurnBatchedRedis extends Redis {
  private corked = false;

  override sendCommand(command: Command, stream?: Parameters<Redis['sendCommand']>[1]): unknown {
    // Only a ready connection writes at once; otherwise the command waits in ioredis's offline
    // queue, and comes back here when the connection is ready. A command for another stream (a
    // transaction's or a pipeline's) is none of this connection's writes.
    if (!this.corked && !stream && this.status === 'ready') {
      const socket = this.stream;
      socket.cork();
      this.corked = true;
      // After the I/O callbacks of this turn (as auto-pipelining): the reads of every request that
      // arrived together leave together.
      setImmediate(() => {
        this.corked = false;
        socket.uncork();
      });
    }
    return super.sendCommand(command, stream);
  }
}

/** Whether a client talks to a Redis Cluster. */
export function isCluster(redis: Redis): boolean {
  return (redis as unknown) instanceof Cluster;
}

/** The masters of a cluster (known once it is ready: a command waits for that), or the one server. */
export async function mastersOf(redis: Redis): Promise<Redis[]> {
  if (!isCluster(redis)) return [redis];
  const cluster = redis as unknown as Cluster;
  if (cluster.status !== 'ready') await cluster.ping();
  return cluster.nodes('master');
}

/**
 * Every key matching `pattern`, batch by batch (SCAN, on each master of a cluster: a cluster
 * client's SCAN would read one node only).
 */
export async function scanKeys(redis: Redis, pattern: string, onBatch: (keys: string[]) => Promise<void>) {
  for (const node of await mastersOf(redis)) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      if (keys.length > 0) await onBatch(keys);
      cursor = next;
    } while (cursor !== '0');
  }
}

/** The database number a client works in (pub/sub channels carry it: see keys.ts). A cluster has only 0. */
export function dbOf(redis: Redis): number {
  return isCluster(redis) ? 0 : (redis.options.db ?? 0);
}

/**
 * Refuses to run on a Redis that may evict keys: allkeys-* could drop any board and
 * volatile-* the DAY and WEEK boards (they carry a TTL). Only noeviction is safe.
 */
export async function assertNoBoardEviction(redis: Redis): Promise<void> {
  // In a cluster every master holds boards: each must say noeviction.
  for (const node of await mastersOf(redis)) {
    const reply = (await node.config('GET', 'maxmemory-policy')) as string[];
    const policy = reply[1] ?? '';
    if (policy !== 'noeviction') {
      throw new Error(`Redis maxmemory-policy is ${policy}: it can evict a board. Use noeviction.`);
    }
  }
}
