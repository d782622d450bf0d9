import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkReadiness, withChecksOf } from '../../src/service/readiness.js';

afterEach(() => vi.useRealTimers());

describe('checkReadiness', () => {
  it('is ready when every check resolves, and lists them in the order given', async () => {
    const r = await checkReadiness({ b: async () => 1, a: () => Promise.resolve() }, 2_000);
    expect(r).toEqual({ ok: true, checks: { b: 'ok', a: 'ok' } });
    expect(Object.keys(r.checks)).toEqual(['b', 'a']);
  });

  it('reports a failing check by its message', async () => {
    const r = await checkReadiness(
      { pg: async () => 1, redis: () => Promise.reject(new Error('ECONNREFUSED')) },
      2_000,
    );
    expect(r).toEqual({ ok: false, checks: { pg: 'ok', redis: 'ECONNREFUSED' } });
  });

  it('answers for a check that hangs once the time-out passes', async () => {
    vi.useFakeTimers();
    const pending = checkReadiness({ hangs: () => new Promise(() => {}), fine: async () => 1 }, 2_000);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await pending).toEqual({ ok: false, checks: { hangs: 'timed out after 2 s', fine: 'ok' } });
  });
});

describe('withChecksOf', () => {
  it.each([
    [{ a: 'ok' }, { b: 'ok' }, { ok: true, checks: { a: 'ok', b: 'ok' } }],
    [{ a: 'ok' }, { b: 'down' }, { ok: false, checks: { a: 'ok', b: 'down' } }],
    // A check both have is this process's own.
    [{ a: 'ok' }, { a: 'down' }, { ok: true, checks: { a: 'ok' } }],
    [{ a: 'down' }, { primary: 'no answer' }, { ok: false, checks: { a: 'down', primary: 'no answer' } }],
  ])('%j with %j → %j', (own, other, expected) => {
    const of = (checks: Record<string, string>) => ({ ok: Object.values(checks).every((c) => c === 'ok'), checks });
    expect(withChecksOf(of(own), of(other))).toEqual(expected);
  });
});
