import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { docs } from '../support/operations.js';
import { DomainError, rateLimited } from '../../src/domain/errors.js';
import { useReadRateLimit } from '../../src/graphql/use-read-rate-limit.js';

/** Runs a plugin's onExecute as yoga would, and its onExecuteDone. */
function execute(plugin: ReturnType<typeof useReadRateLimit>, text: string, operationName?: string) {
  const calls: string[] = [];
  const contextValue = {
    clientAddress: '10.0.0.1',
    services: {
      rateLimit: (kind: string, key: string) => {
        calls.push(`${kind}:${key}`);
        if (key === 'spent') throw rateLimited('slow down');
      },
    },
  };
  const args = { document: parse(text), operationName, contextValue };
  void plugin.onExecute?.({ args } as never);
  return { calls };
}

describe('useReadRateLimit', () => {
  it.each([
    [docs.query, undefined, ['read:10.0.0.1']],
    [docs.two, 'A', ['read:10.0.0.1']],
    // Mutations are limited per API key, subscriptions by the socket limits.
    [docs.mutation, undefined, []],
    [docs.subscription, undefined, []],
    [docs.two, 'B', []],
  ])('%s named %s takes %j', (text, name, expected) => {
    expect(execute(useReadRateLimit(), text, name).calls).toEqual(expected);
  });

  it('lets RATE_LIMITED through to the translation', () => {
    const plugin = useReadRateLimit();
    const args = {
      document: parse(docs.query),
      contextValue: {
        clientAddress: 'spent',
        services: {
          rateLimit: () => {
            throw rateLimited('slow down');
          },
        },
      },
    };
    expect(() => plugin.onExecute?.({ args } as never)).toThrow(DomainError);
  });
});
