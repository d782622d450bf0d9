import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKeysRepo, type ApiKeysRepo } from '../../src/postgres/api-keys-repo.js';
import { createApiKey, hashApiKey } from '../../src/service/api-keys.js';
import { testConfig, uniqueName } from '../support/env.js';
import { openServices, type Services } from '../support/services.js';

let s: Services;
let repo: ApiKeysRepo;

beforeAll(() => {
  s = openServices(testConfig());
  repo = createApiKeysRepo(s.pg.db);
});

afterAll(async () => {
  await s?.close();
});

describe('the API keys repository', () => {
  it('lists keys without their hash and revokes a key only once', async () => {
    const { id, name } = await createApiKey(repo, { name: uniqueName('listed'), scopes: ['admin'] });
    const listed = (await repo.list()).find((k) => k.id === id);
    expect(listed).toEqual({
      id,
      name,
      scopes: ['admin'],
      createdAt: expect.any(Date),
      revokedAt: null,
      lastUsedAt: null,
    });
    expect(await repo.revoke(id)).toBe(true);
    expect(await repo.revoke(id)).toBe(false);
    expect((await repo.list()).find((k) => k.id === id)?.revokedAt).toBeInstanceOf(Date);
    expect(await repo.revoke(2 ** 31 - 1)).toBe(false);
  });

  it('marks a key used when it is looked up, at most once a minute, and finds it through a grace period only', async () => {
    const { id, key } = await createApiKey(repo, { name: uniqueName('used'), scopes: ['submit'] });
    expect(await repo.findActiveByHash(hashApiKey(key))).toMatchObject({ id, lastUsedAt: null });
    const used = (await repo.get(id))!.lastUsedAt;
    expect(used).toBeInstanceOf(Date);
    await repo.findActiveByHash(hashApiKey(key));
    expect((await repo.get(id))!.lastUsedAt).toEqual(used); // within the minute: not written again
    expect(await repo.revoke(id, 60)).toBe(true); // stops in a minute
    expect(await repo.findActiveByHash(hashApiKey(key))).toMatchObject({ id });
    expect(await repo.revoke(id)).toBe(true); // now
    expect(await repo.findActiveByHash(hashApiKey(key))).toBeUndefined();
  });
});
