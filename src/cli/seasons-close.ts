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
    const by = { actor: `cli:${osUser()}`, reason };
    const r = await withApp(config, (app) => app.seasonJobs.close(seasonId, by, undefined, progress));
    ctx.out(
      r.finalized
        ? `closed season ${seasonId}: ${r.rows} final standings on ${r.boards} boards, ${r.rewards} rewards granted (${r.rewardsPublished} sent), ${r.keysRemoved} Redis keys removed, in ${(r.durationMs / 1000).toFixed(1)} s`
        : `season ${seasonId} was already closed and final; ${r.rewardsPublished} rewards sent, ${r.keysRemoved} leftover Redis keys removed`,
    );
  },
};
