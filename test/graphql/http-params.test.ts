import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { paramsOf, plainJson } from '../../src/graphql/http-params.js';

const request = (method: string, url: string, contentType?: string) =>
  ({ method, url, headers: contentType ? { 'content-type': contentType } : {} }) as IncomingMessage;

describe('paramsOf', () => {
  it.each([
    [
      'GET with query, operationName and variables',
      request('GET', '/graphql?query=%7Ba%7D&operationName=A&variables=%7B%22x%22%3A1%7D'),
      '',
      { params: { query: '{a}', operationName: 'A', variables: { x: 1 }, extensions: undefined } },
    ],
    [
      'GET with only a persisted query hash',
      request('GET', '/graphql?extensions=%7B%22persistedQuery%22%3A%7B%22sha256Hash%22%3A%22ab%22%7D%7D'),
      '',
      {
        params: {
          query: undefined,
          operationName: undefined,
          variables: undefined,
          extensions: { persistedQuery: { sha256Hash: 'ab' } },
        },
      },
    ],
    ['GET without query or extensions: not taken', request('GET', '/graphql?variables=%7B%7D'), '', {}],
    ['GET with variables that are not JSON: not taken', request('GET', '/graphql?query=%7Ba%7D&variables=%7B'), '', {}],
    [
      'POST JSON',
      request('POST', '/graphql', 'application/json'),
      '{"query":"{a}"}',
      { params: { query: '{a}' }, body: '{"query":"{a}"}' },
    ],
    [
      'POST JSON array: no parameters, the body goes on',
      request('POST', '/graphql', 'application/json'),
      '[1]',
      { params: undefined, body: '[1]' },
    ],
    [
      'POST JSON that does not parse',
      request('POST', '/graphql', 'application/json; charset=utf-8'),
      '{',
      { body: '{' },
    ],
    ['POST of another type', request('POST', '/graphql', 'application/graphql'), '{a}', { body: '{a}' }],
  ])('%s', (_name, req, body, expected) => {
    expect(paramsOf(req, body)).toEqual(expected);
  });
});

describe('plainJson', () => {
  it.each([
    [undefined, true],
    ['*/*', true],
    ['application/json', true],
    ['application/graphql-response+json', false],
    ['text/event-stream', false],
  ])('%s → %s', (accept, expected) => {
    expect(plainJson(accept)).toBe(expected);
  });
});
