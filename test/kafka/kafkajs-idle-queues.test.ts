// What src/kafka/kafkajs-idle-queues.ts relies on in kafkajs's internals, pinned: it fails when an
// upgrade changes the RequestQueue it mends, or fixes the loop (then the mend goes).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { RequestQueueClass, unmendedSchedule, type RequestQueue } from '../../src/kafka/kafkajs-idle-queues.js';
// The module every kafkajs client of ladder goes through: importing it applies the mend.
import '../../src/kafka/client.js';

const requireCjs = createRequire(import.meta.url);
type Queue = RequestQueue & { throttleCheckTimeoutId: unknown; checkPendingRequests(): void; destroy(): void };
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const queues: Queue[] = [];
function newQueue(): Queue {
  const queue = new RequestQueueClass({
    clientId: 'ladder-test',
    broker: 'b:9092',
    requestTimeout: 30_000,
    logger: silent,
  });
  queues.push(queue as Queue);
  return queue as Queue;
}
afterEach(() => {
  for (const q of queues.splice(0)) q.destroy(); // clears any timer a test armed
});

describe("kafkajs's request queue as the mend knows it", () => {
  it('is kafkajs 2.2.4 (package.json pins it)', () => {
    expect((requireCjs('kafkajs/package.json') as { version: string }).version).toBe('2.2.4');
    const ours = JSON.parse(readFileSync('package.json', 'utf8')) as { dependencies: Record<string, string> };
    expect(ours.dependencies.kafkajs).toBe('2.2.4');
  });

  it('has the methods and fields the mend reads, of the same arity', () => {
    expect(typeof unmendedSchedule).toBe('function');
    expect(unmendedSchedule.length).toBe(0);
    const proto = RequestQueueClass.prototype as Queue;
    expect(proto.checkPendingRequests.length).toBe(0);
    const queue = newQueue();
    expect(queue.pending).toEqual([]);
    expect(queue.throttledUntil).toBe(-1);
    expect(queue.throttleCheckTimeoutId).toBeNull();
  });

  it("is the class kafkajs's broker connections build their queues from, mended", () => {
    const Connection = requireCjs('kafkajs/src/network/connection.js') as new (o: object) => { requestQueue: Queue };
    const connection = new Connection({ host: 'b', port: 9092, logger: { namespace: () => silent } });
    queues.push(connection.requestQueue);
    expect(connection.requestQueue).toBeInstanceOf(RequestQueueClass);
    expect(connection.requestQueue.scheduleCheckPendingRequests).not.toBe(unmendedSchedule);
  });

  it('still loops upstream: unmended, an idle queue arms a timer after each check (delete the mend when this fails)', () => {
    const queue = newQueue();
    unmendedSchedule.call(queue);
    expect(queue.pending).toHaveLength(0);
    expect(queue.throttleCheckTimeoutId).not.toBeNull();
  });
});

describe('the mend', () => {
  it('arms no timer when nothing is pending and nothing throttles', () => {
    const queue = newQueue();
    queue.checkPendingRequests(); // what each answer runs
    expect(queue.throttleCheckTimeoutId).toBeNull();
  });

  it("leaves kafkajs's own schedule to a queue with requests waiting", () => {
    const queue = newQueue();
    queue.throttledUntil = Date.now() + 60_000; // throttled: a waiting request is not sent now
    queue.pending.push({ correlationId: 1 });
    queue.checkPendingRequests();
    expect(queue.pending).toHaveLength(1);
    expect(queue.throttleCheckTimeoutId).not.toBeNull();
  });

  it("leaves kafkajs's own schedule to a throttled queue with nothing waiting", () => {
    const queue = newQueue();
    queue.throttledUntil = Date.now() + 60_000;
    queue.checkPendingRequests();
    expect(queue.throttleCheckTimeoutId).not.toBeNull();
  });
});
