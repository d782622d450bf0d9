// `history archive` and `history load`: a closed season's raw results to files and back.
import { parse, positiveInt, UsageError, withApp, type Command } from './command.js';

export const historyArchive: Command = {
  args: '--season <id>',
  summary:
    'archive a closed season’s raw results to HISTORY_ARCHIVE_DIR, verify, then drop their partitions (idempotent)',
  audit: 'history_archive',
  async run(argv, ctx) {
    const { values } = parse(argv, { season: { type: 'string' } });
    const seasonId = positiveInt('season', values.season);
    const r = await withApp(ctx.config(), (app) => app.seasonJobs.archive(seasonId));
    ctx.out(
      r.archived
        ? `archived season ${seasonId}: ${r.rows} results in ${r.files} files under ${r.dir}; partitions dropped`
        : `season ${seasonId} was archived already (${r.rows} results under ${r.dir})`,
    );
    // Each further board of the season (docs/design.md#boards) is archived with it, in a directory of its own.
    for (const b of r.boards)
      ctx.out(`  and its board ${b.seasonId}: ${b.rows} results in ${b.files} files under ${b.dir}`);
  },
};

export const historyLoad: Command = {
  args: '--dir <archive dir> --schema <name>',
  summary: 'load an archive (checked against its manifest) into <schema>.match_results, a scratch table',
  audit: 'history_load',
  async run(argv, ctx) {
    const { values } = parse(argv, { dir: { type: 'string' }, schema: { type: 'string' } });
    if (!values.dir) throw new UsageError('--dir is required: a season-<id> directory of an archive');
    if (!values.schema || !/^[a-z_][a-z0-9_]{0,62}$/.test(values.schema) || values.schema === 'public')
      throw new UsageError('--schema must be a new lower-case schema name, not public');
    const { dir, schema } = values as { dir: string; schema: string };
    const r = await withApp(ctx.config(), (app) => app.seasonJobs.loadArchive(dir, schema));
    ctx.out(`loaded ${r.rows} results of season ${r.manifest.seasonId} into ${schema}.match_results`);
  },
};
