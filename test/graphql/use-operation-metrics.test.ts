import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { docs } from '../support/operations.js';
import { useOperationMetrics } from '../../src/graphql/use-operation-metrics.js';

describe('useOperationMetrics', () => {
  it.each([
    [docs.query, undefined, 'query'],
    [docs.mutation, undefined, 'mutation'],
    [docs.two, 'B', 'mutation'],
    [docs.two, 'C', 'unknown'],
  ])('%s named %s is observed as %s', async (text, name, type) => {
    const seen: Array<[string, number]> = [];
    const plugin = useOperationMetrics((t, seconds) => seen.push([t, seconds]));
    const hooks = (await plugin.onExecute?.({ args: { document: parse(text), operationName: name } } as never)) as {
      onExecuteDone(): void;
    };
    expect(seen).toEqual([]);
    hooks.onExecuteDone();
    expect(seen).toEqual([[type, expect.any(Number)]]);
    expect(seen[0]![1]).toBeGreaterThanOrEqual(0);
  });
});
