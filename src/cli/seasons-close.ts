// `seasons close`: the close procedure, run now, saying on stderr what it waits for as it goes.
import { osUser, parse, positiveInt, UsageError, withApp, type Command } from './command.js';
import { createCloseProgress } from './close-progress-text.js';

export const seasonsClose: Command = {
  args: '--season <id> --reason <text>',
  summary:
    'close a season now: apply what Kafka holds, write every final rank, remove its Redis boards (idempotent; ' +
    'progress on stderr)',
  async run(argv, ctx) {
    const { values } = parse(argv, { season: { type: 'string' }, reason: { type: 'string' } });
    const seasonId = positiveInt('season', values.season);
    const reason = values.reason?.trim();
    if (!reason) throw new UsageError('--reason is required: it goes to the audit log');
    const config = ctx.config();
    const progress = createCloseProgress(`close season ${seasonId}`, (s) => process.stderr.write(s));
    const r = await withApp(config, async (app) => {
      // Loaded here, as withApp loads the app: --help and usage errors need none of it.
      const { closeSeasonWithProgress } = await import('../app/close-season-with-progress.js');
      return closeSeasonWithProgress(app, config, seasonId, { actor: `cli:${osUser()}`, reason }, progress);
    });
    ctx.out(
      r.finalized
        ? `closed season ${seasonId}: ${r.rows} final standings on ${r.boards} boards, ${r.keysRemoved} Redis keys removed, in ${(r.durationMs / 1000).toFixed(1)} s`
        : `season ${seasonId} was already closed and final; ${r.keysRemoved} leftover Redis keys removed`,
    );
  },
};
