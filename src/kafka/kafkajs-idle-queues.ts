// The one place ladder reaches into kafkajs's internals, kept as small as it can be, because no
// option, hook or public API of kafkajs reaches the loop it stops.
//
// kafkajs 2.2.4 keeps every broker connection that has answered a request waking its process once
// a millisecond, forever: on each answer RequestQueue.checkPendingRequests calls
// scheduleCheckPendingRequests, which arms a timer even with nothing pending and no throttle (its
// delay, throttledUntil - now, is then negative: 1 ms), and the timer checks again. Upstream:
// tulios/kafkajs#1556, #1604 and #1704; the fixes (#1667, #1768) are not merged, and kafkajs has had
// no release since 2.2.4. Options do not reach it (requestTimeout, enforceRequestTimeout,
// maxInFlightRequests, retry, socketFactory and logCreator act elsewhere), nor does any event.
//
// The mend: with nothing pending and no throttle there is nothing to check later. A new request is
// sent at once or queued (which schedules a check), and each answer checks the queue itself.
// Anything else goes to kafkajs's own method, unchanged.
//
// kafkajs is pinned (package.json). test/kafka/kafkajs-idle-queues.test.ts fails when kafkajs's
// RequestQueue no longer has the shape this relies on, or no longer has the loop (then delete this
// file); test/kafka/request-queue.int.test.ts shows, against the real broker, that idle
// connections stay quiet.
import { createRequire } from 'node:module';

/** What of kafkajs's per-connection RequestQueue the mend reads. */
export interface RequestQueue {
  pending: unknown[];
  throttledUntil: number;
  scheduleCheckPendingRequests(): void;
}

const REQUEST_QUEUE = 'kafkajs/src/network/requestQueue/index.js';

/** kafkajs's RequestQueue class, the one its connections use (same module, same require cache). */
export const RequestQueueClass = createRequire(import.meta.url)(REQUEST_QUEUE) as {
  new (options: Record<string, unknown>): RequestQueue;
  prototype: RequestQueue;
};

/** kafkajs's own scheduleCheckPendingRequests, before the mend. */
export const unmendedSchedule = RequestQueueClass.prototype.scheduleCheckPendingRequests;

if (typeof unmendedSchedule !== 'function' || unmendedSchedule.length !== 0) {
  throw new Error(`kafkajs changed: ${REQUEST_QUEUE} has no scheduleCheckPendingRequests(); review ${import.meta.url}`);
}

RequestQueueClass.prototype.scheduleCheckPendingRequests = function (this: RequestQueue) {
  if (this.pending.length === 0 && this.throttledUntil <= Date.now()) return;
  unmendedSchedule.call(this);
};
