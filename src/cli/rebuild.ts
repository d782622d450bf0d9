// `rebuild`: a season's Redis boards refilled from PostgreSQL.
import { isDomainError } from '../domain/errors.js';
import { parse, positiveInt, withApp, withProgress, type Command } from './command.js';
import { rebuildReportLines } from './report-text.js';

export const rebuild: Command = {
  args: '--season <id>',
  summary: "rebuild a season's Redis boards from PostgreSQL (progress on stderr, report on stdout)",
  audit: 'rebuild',
  async run(argv, ctx) {
    const seasonId = positiveInt('season', parse(argv, { season: { type: 'string' } }).values.season);
    const report = await withApp(ctx.config(), (app) =>
      withProgress(
        app,
        'rebuild',
        seasonId,
        (tick) => app.boards.rebuild(seasonId, tick),
        (r) => r.members,
      ),
    ).catch((err: unknown) => {
      if (!isDomainError(err) || err.code !== 'REBUILD_IN_PROGRESS') throw err;
      // The marker of a crashed rebuild lives MARKER_TTL_MS (src/redis/board-rebuilder.ts).
      throw new Error(
        `season ${seasonId} is already being rebuilt (REBUILD_IN_PROGRESS): one rebuild per season at a time. ` +
          'Wait for it to finish; the lock of a crashed rebuild expires within 60 s.',
      );
    });
    for (const line of rebuildReportLines(report)) ctx.out(line);
  },
};
