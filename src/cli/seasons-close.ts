// `seasons close`: the close procedure, run now.
import { osUser, parse, positiveInt, UsageError, withApp, type Command } from './command.js';

export const seasonsClose: Command = {
  args: '--season <id> --reason <text>',
  summary: 'close a season now: apply what Kafka holds, write every final rank, remove its Redis boards (idempotent)',
  async run(argv, ctx) {
    const { values } = parse(argv, { season: { type: 'string' }, reason: { type: 'string' } });
    const seasonId = positiveInt('season', values.season);
    const reason = values.reason?.trim();
    if (!reason) throw new UsageError('--reason is required: it goes to the audit log');
    const r = await withApp(ctx.config(), (app) =>
      app.seasonJobs.close(seasonId, { actor: `cli:${osUser()}`, reason }),
    );
    ctx.out(
      r.finalized
        ? `closed season ${seasonId}: ${r.rows} final standings on ${r.boards} boards, ${r.keysRemoved} Redis keys removed, in ${(r.durationMs / 1000).toFixed(1)} s`
        : `season ${seasonId} was already closed and final; ${r.keysRemoved} leftover Redis keys removed`,
    );
  },
};
