import { describe, expect, it } from 'vitest';
import { chooseShardTags, slotOfTag } from '../../src/redis/shard-placement.js';

describe('slotOfTag: Redis Cluster key slots (CRC16-XMODEM mod 16384)', () => {
  it.each([
    // values printed by `redis-cli cluster keyslot`
    ['foo', 12182],
    ['bar', 5061],
    ['user1000', 3443],
    ['123456789', 12739],
    ['', 0],
  ])('%s -> %i', (tag, slot) => {
    expect(slotOfTag(tag)).toBe(slot);
  });
});

describe('chooseShardTags: one tag per shard, the best shard on the first master, round the masters', () => {
  const three = [[[0, 5460]], [[5461, 10922]], [[10923, 16383]]] as const;
  const inMaster = (tag: string) => three.findIndex(([[a, b]]) => slotOfTag(tag) >= a && slotOfTag(tag) <= b);
  it.each([1, 2, 3, 4, 6])('%i shards on 3 masters', (count) => {
    const tags = chooseShardTags(42, count, three);
    expect(tags).toHaveLength(count);
    expect(new Set(tags).size).toBe(count);
    tags.forEach((t, k) => {
      expect(t.startsWith(`s42.${k}`)).toBe(true);
      expect(inMaster(t)).toBe((count - 1 - k) % 3);
    });
  });

  it('one server: plain tags', () => {
    expect(chooseShardTags(7, 3, [])).toEqual(['s7.0', 's7.1', 's7.2']);
  });
});
