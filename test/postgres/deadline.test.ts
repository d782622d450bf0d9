import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.js';
import { bounded, createDeadline, isUnreachable } from '../../src/postgres/deadline.js';

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: unknown) => (e instanceof DomainError ? e.code : (e as Error).message),
  );
const never = new Promise<never>(() => {});

describe('isUnreachable', () => {
  it.each([
    [{ code: 'ECONNREFUSED' }, true],
    [{ code: 'CONNECTION_CLOSED' }, true],
    [{ code: 'CONNECT_TIMEOUT' }, true],
    [{ code: '08006' }, true], // connection failure
    [{ code: '57P01' }, true], // admin shutdown
    [{ code: '53300' }, true], // too many connections
    [{ message: 'Failed query', cause: { code: 'ECONNRESET' } }, true], // drizzle's wrapper
    [{ code: '23505' }, false], // unique violation: a real answer
    [{ code: '42P01' }, false], // undefined table: a bug
    [new Error('x'), false],
    [null, false],
  ])('%j: %s', (err, expected) => {
    expect(isUnreachable(err)).toBe(expected);
  });
});

describe('createDeadline', () => {
  it('answers UNAVAILABLE past the deadline, then at once for one deadline, then tries again', async () => {
    let t = 0;
    const deadline = createDeadline(30, { now: () => t });
    expect(await codeOf(deadline(() => never))).toBe('UNAVAILABLE');
    t = 29;
    expect(await codeOf(deadline(() => Promise.resolve(1)))).toBe('UNAVAILABLE'); // not even tried
    t = 30;
    expect(await codeOf(deadline(() => Promise.resolve(1)))).toBe('ok');
  });

  it('leaves no unhandled rejection behind when the work fails after its deadline', async () => {
    const deadline = createDeadline(10);
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      let fail!: (err: Error) => void;
      const work = new Promise<never>((_, reject) => (fail = reject));
      expect(await codeOf(deadline(() => work))).toBe('UNAVAILABLE');
      fail(Object.assign(new Error('reset'), { code: 'ECONNRESET' }));
      // Node reports an unhandled rejection once the microtask queue drains: the next turn is late enough.
      await new Promise((r) => setImmediate(r));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
    }
  });

  it('maps a connection failure to UNAVAILABLE and leaves other errors as they are', async () => {
    const deadline = createDeadline(1_000);
    expect(await codeOf(deadline(() => Promise.reject(Object.assign(new Error('x'), { code: '23505' }))))).toBe('x');
    expect(
      await codeOf(deadline(() => Promise.reject(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })))),
    ).toBe('UNAVAILABLE');
  });

  it('bounds every method of a repository, and leaves its other properties alone', async () => {
    const repo = bounded({ slow: () => never, name: 'repo' }, createDeadline(20));
    expect(await codeOf(repo.slow())).toBe('UNAVAILABLE');
    expect(repo.name).toBe('repo');
  });

  it('starts no work while PostgreSQL is marked down: an outage piles up no queries', async () => {
    let started = 0;
    const deadline = createDeadline(30, { now: () => 0 });
    expect(await codeOf(deadline(() => (started++, never)))).toBe('UNAVAILABLE');
    for (let i = 0; i < 100; i++)
      expect(await codeOf(deadline(() => (started++, Promise.resolve(1))))).toBe('UNAVAILABLE');
    expect(started).toBe(1);
  });

  it('runs at most maxInFlight calls, counted until their work settles (not until their deadline)', async () => {
    const deadline = createDeadline(1_000, { maxInFlight: 2 });
    const ends: Array<() => void> = [];
    const held = () => new Promise<number>((resolve) => ends.push(() => resolve(1)));
    const [a, b] = [deadline(held), deadline(held)];
    let started = 0;
    expect(await codeOf(deadline(() => (started++, Promise.resolve(1))))).toBe('UNAVAILABLE');
    expect(started).toBe(0);
    ends.shift()!();
    expect(await codeOf(a)).toBe('ok');
    expect(await codeOf(deadline(() => Promise.resolve(1)))).toBe('ok');
    ends.shift()!();
    expect(await codeOf(b)).toBe('ok');
  });
});
