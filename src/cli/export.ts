// `export`: a closed season's final standings as CSV or NDJSON.
import { parseExportFilter } from '../service/export-final-standings.js';
import { parse, positiveInt, UsageError, withApp, type Command } from './command.js';
import { openExportSink } from './export-output.js';

export const exportStandings: Command = {
  args: '--season <id> [--window SEASON|DAY|WEEK] [--period <yyyy-mm-dd|YYYY-Www>] [--format csv|ndjson] [--out <file>]',
  summary: "write a closed season's final standings (every board, or one window or period) to stdout or --out",
  audit: 'export_standings',
  async run(argv, ctx) {
    const opts = {
      season: { type: 'string' },
      window: { type: 'string' },
      period: { type: 'string' },
      format: { type: 'string' },
      out: { type: 'string' },
    } as const;
    const { values } = parse(argv, opts);
    const seasonId = positiveInt('season', values.season);
    const format = values.format ?? 'csv';
    if (format !== 'csv' && format !== 'ndjson')
      throw new UsageError(`--format must be csv or ndjson, got "${format}"`);
    const input = { seasonId, filter: parseExportFilter(values.window, values.period), format } as const;
    const sink = openExportSink(values.out);
    const { rows } = await withApp(ctx.config(), (app) =>
      app.seasonJobs.exportFinal(input, (c) => sink.write(c)),
    ).catch(async (err: unknown) => {
      await sink.abort();
      throw err;
    });
    await sink.commit();
    // stdout may be the data itself: the summary goes there only when the data went to a file.
    if (values.out) ctx.out(`exported ${rows} rows of season ${seasonId} to ${values.out}`);
    else process.stderr.write(`exported ${rows} rows of season ${seasonId}\n`);
  },
};
