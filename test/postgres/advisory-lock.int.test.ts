import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTryAdvisoryLock } from '../../src/postgres/advisory-lock.js';
import { testConfig } from '../support/env.js';
import { openServices, type Services } from '../support/services.js';

let s: Services;

beforeAll(() => {
  s = openServices(testConfig());
});

afterAll(async () => {
  await s?.close();
});

describe('withTryAdvisoryLock', () => {
  it('lets one holder in at a time and frees the lock when it is done', async () => {
    let inside!: () => void;
    const entered = new Promise<void>((r) => {
      inside = r;
    });
    let leave!: () => void;
    const first = withTryAdvisoryLock(s.pg.sql, 424_242, async () => {
      inside();
      await new Promise<void>((r) => {
        leave = r;
      });
      return 'first';
    });
    await entered;
    expect(await withTryAdvisoryLock(s.pg.sql, 424_242, async () => 'second')).toEqual({ acquired: false });
    leave();
    expect(await first).toEqual({ acquired: true, value: 'first' });
    expect(await withTryAdvisoryLock(s.pg.sql, 424_242, async () => 'third')).toEqual({
      acquired: true,
      value: 'third',
    });
  });
});
