import type { ExecutionResult } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createSharedSubscriptions } from '../../src/graphql/shared-subscriptions.js';
import { listen, pushStream } from '../../src/service/push-stream.js';

/** A push stream of results whose next() is counted: a listened-to stream is never pulled. */
function source() {
  let push!: (r: ExecutionResult) => void;
  const state = { cleanups: 0, pulls: 0 };
  const stream = pushStream<ExecutionResult>(
    (p) => {
      push = p;
      return () => state.cleanups++;
    },
    { latestOnly: true },
  );
  const next = stream.next.bind(stream);
  stream.next = () => {
    state.pulls++;
    return next();
  };
  return { stream, push: (n: number) => push({ data: { n } }), state };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('shared subscriptions over a push stream', () => {
  it('write each push to every subscriber in order, pull nothing, and clean up once when the last leaves', async () => {
    const shared = createSharedSubscriptions();
    const src = source();
    const a: string[] = [];
    const b: string[] = [];
    const subA = await shared.subscribe(
      'k',
      () => src.stream,
      (json) => a.push(json),
    );
    await tick();
    src.push(1);
    src.push(2);
    // A latecomer gets the latest result at once, then what follows.
    const subB = await shared.subscribe(
      'k',
      () => src.stream,
      (json) => b.push(json),
    );
    src.push(3);
    await tick();
    expect(a).toEqual(['{"data":{"n":1}}', '{"data":{"n":2}}', '{"data":{"n":3}}']);
    expect(b).toEqual(['{"data":{"n":2}}', '{"data":{"n":3}}']);
    expect(src.state.pulls).toBe(0);

    await (subA as AsyncIterableIterator<ExecutionResult>).return!();
    expect(src.state.cleanups).toBe(0);
    expect(shared.size()).toBe(1);
    await (subB as AsyncIterableIterator<ExecutionResult>).return!();
    await tick();
    expect(src.state.cleanups).toBe(1);
    expect(shared.size()).toBe(0);
    src.push(4);
    expect(a).toHaveLength(3);
  });
});

describe('pushStream listened to', () => {
  it('hands over what was queued (the newest only, latestOnly), then each push as it comes', async () => {
    let push!: (n: number) => void;
    const stream = pushStream<number>((p) => ((push = p), () => {}), { latestOnly: true });
    push(1);
    push(2);
    const got: number[] = [];
    await stream[listen]((n) => got.push(n));
    push(3);
    push(4);
    expect(got).toEqual([2, 3, 4]);
  });

  it('rejects when the stream failed to start', async () => {
    const stream = pushStream<number>(() => Promise.reject(new Error('no such board')));
    await expect(stream[listen](() => {})).rejects.toThrow('no such board');
  });
});
