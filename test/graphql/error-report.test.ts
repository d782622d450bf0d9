import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.js';
import { codeLabel, codeOf, createErrorLog } from '../../src/graphql/error-report.js';
import type { Logger } from '../../src/logger.js';

describe('codeOf', () => {
  it.each([
    ['a DomainError', new DomainError('FORBIDDEN', 'no'), 'FORBIDDEN'],
    [
      'a resolver error wrapping a DomainError',
      new GraphQLError('x', { originalError: new DomainError('RATE_LIMITED', 'slow') }),
      'RATE_LIMITED',
    ],
    [
      'a syntax error',
      new GraphQLError('Syntax Error', { extensions: { code: 'GRAPHQL_PARSE_FAILED' } }),
      'BAD_USER_INPUT',
    ],
    ['a validation error without a code', new GraphQLError('Cannot query field'), 'BAD_USER_INPUT'],
    [
      'a GraphQL error with its own code',
      new GraphQLError('x', { extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }),
      'PERSISTED_QUERY_NOT_FOUND',
    ],
    ['a resolver bug', new GraphQLError('x', { originalError: new TypeError('undefined') }), 'INTERNAL_SERVER_ERROR'],
    ['a thrown string', 'boom', 'INTERNAL_SERVER_ERROR'],
  ])('%s: %s', (_name, error, code) => {
    expect(codeOf(error)).toBe(code);
  });
});

describe('codeLabel', () => {
  it('keeps codes, and turns malformed or too many distinct ones into OTHER', () => {
    const seen = new Set<string>();
    expect(['FORBIDDEN', 'FORBIDDEN', 'not a code', 'A', 'B', 'C'].map((c) => codeLabel(c, seen, 3))).toEqual([
      'FORBIDDEN',
      'FORBIDDEN',
      'OTHER',
      'A',
      'B',
      'OTHER',
    ]);
  });
});

describe('the error log', () => {
  it('logs client mistakes at info (one line per code per interval, then how many were left out), UNAVAILABLE at warn, bugs at error', () => {
    const lines: Array<[string, Record<string, unknown>]> = [];
    const at = (level: string) => (obj: Record<string, unknown>) => {
      lines.push([level, obj]);
    };
    const log = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } as unknown as Logger;
    let t = 0;
    const report = createErrorLog({ log, sampleMs: 10_000, now: () => t });
    for (let i = 0; i < 806; i++) report(new DomainError('UNAUTHENTICATED', 'no key'));
    report(new DomainError('UNAVAILABLE', 'later'));
    report(new GraphQLError('x', { originalError: new TypeError('bug') }));
    report(new GraphQLError('x', { originalError: new TypeError('bug') }));
    t = 10_000;
    report(new DomainError('UNAUTHENTICATED', 'no key'));
    const levels = lines.reduce<Record<string, number>>((n, [level]) => ({ ...n, [level]: (n[level] ?? 0) + 1 }), {});
    expect(levels).toEqual({ info: 2, debug: 805, warn: 1, error: 2 });
    expect(lines.filter(([level]) => level === 'info').map(([, o]) => o.leftOut)).toEqual([undefined, 805]);
  });
});
