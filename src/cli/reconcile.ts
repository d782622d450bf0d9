// `reconcile`: a season's Redis boards compared with PostgreSQL, optionally repaired.
import { parse, positiveInt, withApp, withProgress, type Command } from './command.js';
import { reconcileReportLines } from './report-text.js';

export const reconcile: Command = {
  args: '--season <id> [--repair] [--page-size <n>]',
  summary: "compare a season's Redis boards with PostgreSQL; --repair writes PostgreSQL's values over the drift",
  audit: 'reconcile',
  async run(argv, ctx) {
    const { values } = parse(argv, {
      season: { type: 'string' },
      repair: { type: 'boolean' },
      'page-size': { type: 'string' },
    });
    const seasonId = positiveInt('season', values.season);
    const pageSize =
      values['page-size'] === undefined ? undefined : positiveInt('page-size', values['page-size'], 100_000);
    const report = await withApp(ctx.config(), (app) =>
      withProgress(
        app,
        'reconcile',
        seasonId,
        (tick) => app.boards.reconcile(seasonId, { repair: values.repair ?? false, pageSize, onProgress: tick }),
        (r) => r.total.pgCount,
      ),
    );
    for (const line of reconcileReportLines(report)) ctx.out(line);
  },
};
