import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { docs } from '../support/operations.js';
import { operationTypeOf } from '../../src/graphql/operation-type.js';

describe('operationTypeOf', () => {
  it.each([
    [docs.query, undefined, 'query'],
    [docs.mutation, null, 'mutation'],
    [docs.subscription, undefined, 'subscription'],
    [docs.two, 'A', 'query'],
    [docs.two, 'B', 'mutation'],
    [docs.two, 'C', undefined],
    // Without a name, the first operation (yoga refuses such a request before executing it).
    [docs.two, undefined, 'query'],
    ['fragment F on Season { id }', undefined, undefined],
  ])('%s named %s → %s', (text, name, expected) => {
    expect(operationTypeOf(parse(text), name)).toBe(expected);
  });
});
