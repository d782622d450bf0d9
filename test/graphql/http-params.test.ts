import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { jsonMediaType, paramsOf, wellFormed } from '../../src/graphql/http-params.js';

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

describe('jsonMediaType', () => {
  const GR = 'application/graphql-response+json';
  const APP_JSON = 'application/json';
  it.each([
    [undefined, APP_JSON],
    ['', APP_JSON],
    ['*/*', APP_JSON],
    ['application/*', APP_JSON],
    [APP_JSON, APP_JSON],
    [GR, GR],
    [`${GR}; charset=utf-8`, GR],
    [`${GR}, ${APP_JSON};q=0.9`, GR], // Apollo Client's default
    [`${APP_JSON}, ${GR}`, APP_JSON], // equal q: the order listed
    [`${APP_JSON};q=0.5, ${GR}`, GR], // q wins over order
    [`*/*, ${GR}`, GR], // a type named beats a wildcard of the same q
    [`${GR};q=0, ${APP_JSON}`, APP_JSON],
    [`${GR};charset=latin1, */*;q=0.1`, APP_JSON],
    ['text/html', undefined],
    ['text/event-stream', undefined],
    [`${APP_JSON};q=0`, undefined],
  ])('%s → %s', (accept, expected) => {
    expect(jsonMediaType(accept)).toBe(expected);
  });
});

describe('wellFormed', () => {
  const pq = { persistedQuery: { version: 1, sha256Hash: 'ab' } };
  it.each([
    [{ query: '{a}' }, true],
    [{ query: '{a}', operationName: 'A', variables: { x: 1 }, extensions: {} }, true],
    [{ query: '{a}', operationName: null, variables: null, extensions: null }, true],
    [{ extensions: pq }, true],
    [{}, false],
    [{ query: 1 }, false],
    [{ query: '{a}', operationName: 5 }, false],
    [{ query: '{a}', operationName: true }, false],
    [{ query: '{a}', variables: 'x' }, false],
    [{ query: '{a}', variables: [] }, false],
    [{ query: '{a}', extensions: 3 }, false],
    [{ query: '{a}', extensions: ['x'] }, false],
    [[{ query: '{a}' }], false],
    [null, false],
  ])('%j → %s', (params, expected) => {
    expect(wellFormed(params)).toBe(expected);
  });
});
