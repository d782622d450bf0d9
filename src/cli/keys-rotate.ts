// `keys rotate <id>`: a new key with the old one's name and scopes, printed once; the old one stops
// at once or after --grace-seconds, so game servers can switch without a gap.
import { withApiKeys } from '../app/cli-parts.js';
import { rotateApiKey } from '../service/api-keys.js';
import { parse, UsageError, type Command } from './command.js';

export const keysRotate: Command = {
  args: '<id> [--grace-seconds <n>]',
  summary: 'replace an API key by a new one (same name and scopes); the old one stops after the grace period',
  audit: 'keys_rotate',
  async run(argv, ctx) {
    const { values, positionals } = parse(argv, { 'grace-seconds': { type: 'string' } }, 1);
    const arg = positionals[0]!;
    const id = /^[1-9]\d{0,9}$/.test(arg) ? Number(arg) : NaN;
    if (!(id <= 2 ** 31 - 1)) throw new UsageError(`<id> must be a key id from \`keys list\`, got "${arg}"`);
    const grace = values['grace-seconds'] ?? '0';
    if (!/^\d{1,8}$/.test(grace)) throw new UsageError(`--grace-seconds must be a whole number, got "${grace}"`);
    const rotated = await withApiKeys(ctx.config(), (keys) => rotateApiKey(keys, id, Number(grace)));
    ctx.out(
      `created API key ${rotated.id} "${rotated.name}" with scopes ${rotated.scopes.join(', ')}; ` +
        `key ${id} stops working at ${rotated.oldStopsAt.toISOString()}`,
    );
    ctx.out('only its hash is stored: save the key below now, it cannot be shown again');
    ctx.out(rotated.key);
  },
};
