// kafkajs 2.2.4 re-armed a 1 ms timer forever on every connection that had answered a request
// (src/kafka/kafkajs-idle-queues.ts). Against the real broker: an idle producer's connections
// stop checking their queues.
import { afterAll, describe, expect, it } from 'vitest';
import { createKafka } from '../../src/kafka/client.js';
import { RequestQueueClass } from '../../src/kafka/kafkajs-idle-queues.js';
import { createLogger } from '../../src/logger.js';
import { TEST_KAFKA_BROKERS } from '../support/env.js';

const queue = RequestQueueClass as unknown as { prototype: { checkPendingRequests(): void } };

describe('kafkajs request queues', () => {
  const kafka = createKafka({
    brokers: TEST_KAFKA_BROKERS.split(','),
    clientId: 'ladder-test',
    logger: createLogger('silent'),
  });
  const producer = kafka.producer();
  afterAll(() => producer.disconnect());

  it('do not wake an idle process after their requests are answered', async () => {
    await producer.connect();
    const admin = kafka.admin();
    await admin.connect();
    await admin.listTopics(); // requests answered on the producer's and the admin's connections
    await admin.disconnect();

    const check = queue.prototype.checkPendingRequests;
    let checks = 0;
    queue.prototype.checkPendingRequests = function (this: unknown) {
      checks++;
      check.call(this);
    };
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
    } finally {
      queue.prototype.checkPendingRequests = check;
    }
    // Unmended: a check per connection per millisecond (hundreds in 500 ms).
    expect(checks).toBeLessThan(10);
  });
});
