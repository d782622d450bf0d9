// `players remove`: a player's results removed and every board recomputed.
import { parse, playerArgs, playerOptions, withApp, type Command } from './command.js';
import { removalReportLines } from './player-report-text.js';

export const playersRemove: Command = {
  args: '--season <id> --player <id> [--match <uuid>] --reason <text> [--block]',
  summary:
    "remove a player's results from a season (all, or one match) and recompute every board; --block refuses their later results",
  async run(argv, ctx) {
    const { values } = parse(argv, { ...playerOptions, match: { type: 'string' }, block: { type: 'boolean' } });
    const input = { ...playerArgs(values), matchId: values.match ?? null, block: values.block ?? false };
    // Waits for the settle pass (a few seconds): this process is the only one that can run it.
    const report = await withApp(ctx.config(), (app) => app.playerAdmin.removeAndSettle(input));
    for (const line of removalReportLines(report)) ctx.out(line);
  },
};
