// `keys revoke <id>`.
import { withApiKeys } from '../app/cli-parts.js';
import { parse, UsageError, type Command } from './command.js';

export const keysRevoke: Command = {
  args: '<id>',
  summary: 'revoke an API key',
  audit: 'keys_revoke',
  async run(argv, ctx) {
    const arg = parse(argv, {}, 1).positionals[0]!;
    const id = /^[1-9]\d{0,9}$/.test(arg) ? Number(arg) : NaN;
    if (!(id <= 2 ** 31 - 1)) throw new UsageError(`<id> must be a key id from \`keys list\`, got "${arg}"`);
    const revoked = await withApiKeys(ctx.config(), (keys) => keys.revoke(id));
    if (!revoked) throw new Error(`no active API key with id ${id}`);
    // The authenticator caches lookups (src/service/api-keys.ts) for API_KEY_CACHE_MS.
    ctx.out(`revoked API key ${id}; running servers refuse it within ${ctx.config().apiKeyCacheMs / 1000} s`);
  },
};
