// `keys create`: a new API key, printed once.
import { withApiKeys } from '../app/cli-parts.js';
import { createApiKey, SCOPES } from '../service/api-keys.js';
import { parse, UsageError, type Command } from './command.js';

export const keysCreate: Command = {
  args: `--name <name> --scope <${SCOPES.join('|')}> [--scope ...]`,
  summary: 'create an API key; its last output line is the key, shown only this once',
  audit: 'keys_create',
  async run(argv, ctx) {
    const { values } = parse(argv, { name: { type: 'string' }, scope: { type: 'string', multiple: true } });
    if (values.name === undefined) throw new UsageError('--name is required');
    if (!values.scope?.length) throw new UsageError('at least one --scope is required');
    const input = { name: values.name, scopes: values.scope };
    const created = await withApiKeys(ctx.config(), (keys) => createApiKey(keys, input));
    ctx.out(`created API key ${created.id} "${created.name}" with scopes ${created.scopes.join(', ')}`);
    ctx.out('only its hash is stored: save the key below now, it cannot be shown again');
    // Last line, alone: scripts capture it with `tail -1`.
    ctx.out(created.key);
  },
};
