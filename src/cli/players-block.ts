// `players block` and `players unblock`: a player's later results refused, or no longer; `players
// hide` and `players unhide`: a player off every board of a season pending review, or back.
import { parse, playerArgs, playerOptions, withApp, type Command } from './command.js';
import { blockReportLine, hideReportLine } from './player-report-text.js';

export const playersBlock: Command = {
  args: '--season <id> --player <id> --reason <text>',
  summary: "refuse a player's later results in a season (running servers within BLOCKED_PLAYERS_CACHE_MS)",
  async run(argv, ctx) {
    const input = playerArgs(parse(argv, playerOptions).values);
    ctx.out(blockReportLine(await withApp(ctx.config(), (app) => app.playerAdmin.block(input))));
  },
};

export const playersUnblock: Command = {
  args: '--season <id> --player <id> --reason <text>',
  summary: 'lift a block (results refused meanwhile stay in the DLQ)',
  async run(argv, ctx) {
    const input = playerArgs(parse(argv, playerOptions).values);
    ctx.out(blockReportLine(await withApp(ctx.config(), (app) => app.playerAdmin.unblock(input))));
  },
};

export const playersHide: Command = {
  args: '--season <id> --player <id> --reason <text>',
  summary: "hide a player from a season's boards pending review (results still stored; ranks close up)",
  async run(argv, ctx) {
    const input = playerArgs(parse(argv, playerOptions).values);
    ctx.out(hideReportLine(await withApp(ctx.config(), (app) => app.playerAdmin.hideAndSettle(input))));
  },
};

export const playersUnhide: Command = {
  args: '--season <id> --player <id> --reason <text>',
  summary: 'show a hidden player again, with every result stored meanwhile',
  async run(argv, ctx) {
    const input = playerArgs(parse(argv, playerOptions).values);
    ctx.out(hideReportLine(await withApp(ctx.config(), (app) => app.playerAdmin.unhideAndSettle(input))));
  },
};
