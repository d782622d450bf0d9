import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { createApiKeysRepo } from '../../src/postgres/api-keys-repo.js';
import { createAuthenticator, hashApiKey } from '../../src/service/api-keys.js';
import { TEST_DATABASE_URL, testConfig, uniqueName } from '../support/env.js';
import { openServices, type Services } from '../support/services.js';

const CACHE_TTL_MS = 5_000;

const cli = (...args: string[]) => runCli({ DATABASE_URL: TEST_DATABASE_URL }, ...args);

const lines = (out: string) => out.trimEnd().split('\n');

let s: Services;
beforeAll(() => {
  s = openServices(testConfig());
});
afterAll(async () => {
  await s?.close();
});

describe('keys create, list, revoke', () => {
  it('creates a key printed alone on the last line, lists it without secrets, and revokes it', async () => {
    const name = uniqueName('ci');
    const created = await cli('keys', 'create', '--name', name, '--scope', 'submit');
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const key = lines(created.stdout).at(-1)!;
    expect(key).toMatch(/^ldr_[A-Za-z0-9_-]{43}$/);

    const repo = createApiKeysRepo(s.pg.db);
    const principal = await createAuthenticator(repo, { cacheTtlMs: CACHE_TTL_MS }).authenticate(`Bearer ${key}`);
    expect(principal?.name).toBe(name);
    expect([...principal!.scopes]).toEqual(['submit']);

    const listed = await cli('keys', 'list');
    expect(listed.code).toBe(0);
    const row = lines(listed.stdout).find((l) => l.split(/\s+/)[1] === name);
    expect(row?.split(/\s+/)).toEqual([
      String(principal!.keyId),
      name,
      'submit',
      expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:]{8}Z$/),
      '-',
      // Used once, by the authentication above.
      expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:]{8}Z$/),
    ]);
    expect(listed.stdout).not.toContain(key.slice(4));
    expect(listed.stdout).not.toContain(hashApiKey(key));

    const revoked = await cli('keys', 'revoke', String(principal!.keyId));
    expect(revoked.code).toBe(0);
    await expect(
      createAuthenticator(repo, { cacheTtlMs: CACHE_TTL_MS }).authenticate(`Bearer ${key}`),
    ).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    const relisted = await cli('keys', 'list');
    expect(
      lines(relisted.stdout)
        .find((l) => l.split(/\s+/)[1] === name)
        ?.split(/\s+/)[4],
    ).toMatch(/Z$/);

    // Revoking twice is an error (exit 1), not bad usage.
    const again = await cli('keys', 'revoke', String(principal!.keyId));
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`no active API key with id ${principal!.keyId}`);
  });

  it('rotates a key: a new one with its name and scopes, the old one working through the grace period only', async () => {
    const name = uniqueName('rotated');
    const created = await cli('keys', 'create', '--name', name, '--scope', 'submit', '--scope', 'admin');
    const old = lines(created.stdout).at(-1)!;
    const repo = createApiKeysRepo(s.pg.db);
    const auth = () => createAuthenticator(repo, { cacheTtlMs: 0 });
    const oldId = (await auth().authenticate(`Bearer ${old}`))!.keyId;

    const rotated = await cli('keys', 'rotate', String(oldId), '--grace-seconds', '2');
    expect(rotated.stderr).toBe('');
    const fresh = lines(rotated.stdout).at(-1)!;
    expect(fresh).toMatch(/^ldr_[A-Za-z0-9_-]{43}$/);
    const principal = await auth().authenticate(`Bearer ${fresh}`);
    expect(principal).toMatchObject({ name });
    expect([...principal!.scopes]).toEqual(['submit', 'admin']);
    // Both work during the grace period; then only the new one.
    expect(await auth().authenticate(`Bearer ${old}`)).toMatchObject({ keyId: oldId });
    await new Promise((r) => setTimeout(r, 2_100));
    await expect(auth().authenticate(`Bearer ${old}`)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(await auth().authenticate(`Bearer ${fresh}`)).toMatchObject({ name });
    // A stopped key cannot be rotated again.
    const again = await cli('keys', 'rotate', String(oldId));
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`no working API key with id ${oldId}`);
  });

  it('gives a key every --scope it is created with', async () => {
    const created = await cli(
      'keys',
      'create',
      '--name',
      uniqueName('ci-admin'),
      '--scope',
      'admin',
      '--scope',
      'submit',
    );
    expect(created.code).toBe(0);
    const principal = await createAuthenticator(createApiKeysRepo(s.pg.db), { cacheTtlMs: CACHE_TTL_MS }).authenticate(
      `Bearer ${lines(created.stdout).at(-1)}`,
    );
    expect([...principal!.scopes].sort()).toEqual(['admin', 'submit']);
  });
});

// Concurrent: each case is a child process that mostly waits for tsx to start.
describe('bad usage', () => {
  it.concurrent.for<[string, string[]]>([
    ['no command', []],
    ['an unknown command', ['frobnicate']],
    ['a group without its subcommand', ['keys']],
    ['an unknown subcommand', ['keys', 'rotate']],
    ['create without --name', ['keys', 'create', '--scope', 'submit']],
    ['create without --scope', ['keys', 'create', '--name', 'x']],
    ['create with an unknown scope', ['keys', 'create', '--name', 'x', '--scope', 'root']],
    ['create with an unknown option', ['keys', 'create', '--name', 'x', '--scope', 'submit', '--ttl', '5']],
    ['revoke without an id', ['keys', 'revoke']],
    ['revoke with a non-numeric id', ['keys', 'revoke', 'abc']],
    ['revoke with an id beyond the int4 range', ['keys', 'revoke', '99999999999']],
    ['list with an extra argument', ['keys', 'list', 'all']],
  ])('exits 2 with the usage text on %s', async ([, args], { expect }) => {
    const run = await cli(...args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('usage: npm run cli');
    expect(run.stdout).toBe('');
  });

  it('prints the usage on stdout and exits 0 for --help', async () => {
    const run = await cli('--help');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('keys create --name <name>');
  });
});
