// kafkajs logs at error much of what it retries by itself; ladder logs those lower.
import { logLevel } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { kafkaLogLevel } from '../../src/kafka/client.js';

describe('kafkaLogLevel', () => {
  it('logs group membership events (rebalances, coordinator moves) at info', () => {
    expect(
      kafkaLogLevel(
        logLevel.ERROR,
        'Response Heartbeat(key: 12, version: 3)',
        'The group is rebalancing, so a rejoin is needed',
      ),
    ).toBe('info');
    expect(
      kafkaLogLevel(
        logLevel.WARN,
        'The group is rebalancing, re-joining',
        'The group is rebalancing, so a rejoin is needed',
      ),
    ).toBe('info');
    expect(kafkaLogLevel(logLevel.ERROR, '[Runner] The group is rebalancing')).toBe('info');
    expect(kafkaLogLevel(logLevel.ERROR, 'The coordinator is not aware of this member, re-joining the group')).toBe(
      'info',
    );
    expect(
      kafkaLogLevel(
        logLevel.ERROR,
        'Response GroupCoordinator(key: 10, version: 2)',
        'The group coordinator is not available',
      ),
    ).toBe('info');
    expect(
      kafkaLogLevel(
        logLevel.ERROR,
        'Response InitProducerId(key: 22, version: 1)',
        "The coordinator is loading and hence can't process requests for this group",
      ),
    ).toBe('info');
  });

  it('logs connection retries and retried requests at warn', () => {
    expect(kafkaLogLevel(logLevel.ERROR, 'Connection error: connect ECONNREFUSED 127.0.0.1:1')).toBe('warn');
    expect(kafkaLogLevel(logLevel.ERROR, 'Connection timeout')).toBe('warn');
    expect(
      kafkaLogLevel(
        logLevel.ERROR,
        'Failed to connect to seed broker, trying another broker from the list: Connection error: connect ECONNREFUSED 127.0.0.1:1',
      ),
    ).toBe('warn');
    expect(kafkaLogLevel(logLevel.ERROR, 'Restarting the consumer in 300ms')).toBe('warn');
    expect(
      kafkaLogLevel(
        logLevel.ERROR,
        'Response Produce(key: 0, version: 7)',
        'This server is not the leader for that topic-partition',
      ),
    ).toBe('warn');
  });

  it('leaves the consumer crash to the ingest consumer, and keeps anything else at its level', () => {
    expect(
      kafkaLogLevel(logLevel.ERROR, 'Crash: KafkaJSNumberOfRetriesExceeded: Connection error: connect ECONNREFUSED'),
    ).toBe('debug');
    expect(kafkaLogLevel(logLevel.ERROR, 'Caught error when disconnecting the consumer: boom')).toBe('error');
    expect(kafkaLogLevel(logLevel.WARN, 'KafkaJS v2.0.0 switched default partitioner')).toBe('warn');
    expect(kafkaLogLevel(logLevel.INFO, 'Starting')).toBe('debug');
  });
});
