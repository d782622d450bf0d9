// Where each shard of a season lives in Redis Cluster: its hash tag decides its slot, and the
// slot its master. Tags are chosen so the shards of one season spread over distinct masters.
import type { Redis } from 'ioredis';
import { isCluster } from './client.js';

const SLOTS = 16384;

// CRC16-XMODEM (polynomial 0x1021), the hash Redis Cluster uses for key slots.
const TABLE = Array.from({ length: 256 }, (_, i) => {
  let c = i << 8;
  for (let j = 0; j < 8; j++) c = c & 0x8000 ? ((c << 1) ^ 0x1021) & 0xffff : (c << 1) & 0xffff;
  return c;
});

/** The cluster slot of a hash tag's keys (`lb:{tag}...`): CRC16 of the tag modulo 16384. */
export function slotOfTag(tag: string): number {
  let crc = 0;
  for (const byte of Buffer.from(tag, 'utf8')) crc = ((crc << 8) & 0xffff) ^ TABLE[((crc >> 8) ^ byte) & 0xff]!;
  return crc % SLOTS;
}

/** The slot ranges of each master, ordered by their first slot (from CLUSTER SLOTS). */
export async function masterSlotRanges(redis: Redis): Promise<Array<Array<[number, number]>>> {
  const reply = await redis.cluster('SLOTS');
  const byMaster = new Map<string, Array<[number, number]>>();
  for (const [from, to, master] of reply) {
    const id = `${master![0]}:${master![1]}`;
    byMaster.set(id, [...(byMaster.get(id) ?? []), [from, to]]);
  }
  return [...byMaster.values()].map((ranges) => ranges.sort((a, b) => a[0] - b[0])).sort((a, b) => a[0]![0] - b[0]![0]);
}

/**
 * Hash tags for `count` shards of a season: `s<id>.<k>`, salted (`s<id>.<k>.<n>`) until its slot
 * is on the master chosen for it. The best shard goes to the first master, the next to the second,
 * and so on round the masters, so the shards read most (the top) sit on different nodes.
 */
export function chooseShardTags(
  seasonId: number,
  count: number,
  masters: ReadonlyArray<ReadonlyArray<readonly [number, number]>>,
): string[] {
  return Array.from({ length: count }, (_, k) => {
    const base = `s${seasonId}.${k}`;
    if (masters.length <= 1) return base;
    const ranges = masters[(count - 1 - k) % masters.length]!;
    for (let salt = 0; ; salt++) {
      const tag = salt === 0 ? base : `${base}.${salt}`;
      const slot = slotOfTag(tag);
      if (ranges.some(([from, to]) => slot >= from && slot <= to)) return tag;
    }
  });
}

/** Tags for the shards of a new season on this Redis (one server: no salt needed). */
export async function placeShards(redis: Redis, seasonId: number, count: number): Promise<string[]> {
  return chooseShardTags(seasonId, count, isCluster(redis) ? await masterSlotRanges(redis) : []);
}
