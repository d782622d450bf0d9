// `keys list`: the API keys, never the keys themselves.
import { withApiKeys } from '../app/cli-parts.js';
import { parse, type Command } from './command.js';

const iso = (d: Date | null) => (d ? `${d.toISOString().slice(0, 19)}Z` : '-');

/** Left-aligned columns, two spaces apart. */
function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
}

export const keysList: Command = {
  args: '',
  summary: 'list API keys (never the keys themselves)',
  async run(argv, ctx) {
    parse(argv, {});
    const keys = await withApiKeys(ctx.config(), (keys) => keys.list());
    if (keys.length === 0) return ctx.out('no API keys');
    const rows = keys.map((k) => [
      String(k.id),
      k.name,
      k.scopes.join(','),
      iso(k.createdAt),
      iso(k.revokedAt),
      iso(k.lastUsedAt),
    ]);
    for (const line of table([['id', 'name', 'scopes', 'created', 'revoked', 'last-used'], ...rows])) ctx.out(line);
  },
};
