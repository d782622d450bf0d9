import { describe, expect, it } from 'vitest';
import { badInput } from '../../src/domain/errors.js';
import { audited, redactSecrets, type AuditRecord } from '../../src/service/audit-trail.js';

describe('redactSecrets', () => {
  it.each<[string, unknown, unknown]>([
    ['a plain value', 7, 7],
    ['fields that name no secret', { name: 'ops', scope: ['admin'] }, { name: 'ops', scope: ['admin'] }],
    ['an API key', { apiKey: 'ldr_x', name: 'k' }, { apiKey: '[redacted]', name: 'k' }],
    [
      'secrets at any depth',
      { a: [{ token: 't', b: { password: 'p' } }] },
      { a: [{ token: '[redacted]', b: { password: '[redacted]' } }] },
    ],
    ['any case', { SECRET: 's', Key: 'k' }, { SECRET: '[redacted]', Key: '[redacted]' }],
  ])('%s', (_name, value, expected) => {
    expect(redactSecrets(value)).toEqual(expected);
  });
});

describe('audited', () => {
  const entry = { actor: 'ops', action: 'rebuild', seasonId: 3, reason: 'test' };
  const run = async (action: () => Promise<unknown>, failRecord = false) => {
    const records: AuditRecord[] = [];
    const recordErrors: unknown[] = [];
    const log = {
      record: async (r: AuditRecord) => {
        if (failRecord) throw new Error('database down');
        records.push(r);
        return records.length;
      },
    };
    const outcome = await audited(log, entry, action, (err) => recordErrors.push(err)).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    return { outcome, records, recordErrors };
  };

  it.each<[string, () => Promise<unknown>, string]>([
    ['a success', async () => 'done', 'ok'],
    ['a domain error, by its code', async () => Promise.reject(badInput('x', 'no')), 'BAD_USER_INPUT'],
    ['any other error, as INTERNAL', async () => Promise.reject(new Error('boom')), 'INTERNAL'],
  ])('records %s once, and hands back what the action gave', async (_name, action, outcome) => {
    const { outcome: got, records } = await run(action);
    expect(records).toEqual([{ ...entry, outcome }]);
    if (outcome === 'ok') expect(got).toEqual({ value: 'done' });
    else expect(got).toHaveProperty('error');
  });

  it("reports a record that cannot be written, and keeps the action's result", async () => {
    const { outcome, recordErrors } = await run(async () => 'done', true);
    expect(outcome).toEqual({ value: 'done' });
    expect(recordErrors).toHaveLength(1);
  });
});
