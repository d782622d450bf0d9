// `audit`: the audit trail, newest first, one JSON object per line (to read, grep or archive).
import { withAuditLog } from '../app/cli-parts.js';
import { parse, positiveInt, type Command } from './command.js';

const PAGE = 500;

export const audit: Command = {
  args: '[--season <id>] [--action <name>] [--limit <n>]',
  summary: 'print the audit trail (every admin action, its arguments and outcome), newest first, as NDJSON',
  async run(argv, ctx) {
    const { values } = parse(argv, {
      season: { type: 'string' },
      action: { type: 'string' },
      limit: { type: 'string' },
    });
    const seasonId = values.season === undefined ? null : positiveInt('season', values.season);
    let left = values.limit === undefined ? Number.POSITIVE_INFINITY : positiveInt('limit', values.limit);
    await withAuditLog(ctx.config(), async (log) => {
      let before: number | null = null;
      while (left > 0) {
        const page = await log.list({ first: Math.min(PAGE, left), before, seasonId, action: values.action ?? null });
        for (const e of page) ctx.out(JSON.stringify(e));
        if (page.length < Math.min(PAGE, left)) break;
        left -= page.length;
        before = page.at(-1)!.id;
      }
    });
  },
};
