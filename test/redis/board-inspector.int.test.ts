import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBoardInspector } from '../../src/redis/board-inspector.js';
import { boardKey } from '../../src/redis/keys.js';
import { seasonBoard } from '../../src/domain/board.js';
import { testConfig } from '../support/env.js';
import { createSeason, openServices, type Services } from '../support/services.js';

let s: Services;
const TTL = 90 * 24 * 3600;

beforeAll(() => {
  s = openServices(testConfig());
});

afterAll(async () => {
  await s?.close();
});

describe('the guarded repair (settle)', () => {
  it('decides again on fresh values when a writer touches the board between its read and its write', async () => {
    const season = await createSeason(s, { name: 'settle race' });
    const key = boardKey(seasonBoard(season));
    await s.redis.zadd(key, '100', '1');
    const other = s.redis.duplicate();
    const seen: Array<Array<string | null>> = [];
    const changed = await createBoardInspector(s.redis, TTL).settle(
      seasonBoard(season),
      ['1'],
      async (scores) => {
        seen.push(scores);
        // A concurrent ingest write lands once, after the first read.
        if (seen.length === 1) await other.zadd(key, 'GT', '200', '1');
        return [['1', '150']];
      },
      true,
    );
    other.disconnect();
    expect(seen).toEqual([['100'], ['200']]);
    expect(changed).toBe(1);
    expect(await s.redis.zscore(key, '1')).toBe('150');
  });
});
