import { builder } from './builder.js';
import type { EntryValue } from './context.js';

export const PlayerRef = builder.objectRef<{ id: string; displayName: string | null }>('Player').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    displayName: t.exposeString('displayName', { nullable: true }),
  }),
});

export const EntryRef = builder.objectRef<EntryValue>('Entry').implement({
  description: "A player's place on a board.",
  fields: (t) => ({
    rank: t.exposeInt('rank', { description: "1-based, in the season's rank style" }),
    playerId: t.exposeID('playerId'),
    points: t.exposeInt('points'),
    achievedAt: t.expose('achievedAt', {
      type: 'DateTime',
      description: "When the player reached these points, truncated to the season's time unit",
    }),
    // Batched: one PostgreSQL query per request, whatever the number of entries.
    player: t.field({
      type: PlayerRef,
      nullable: true,
      resolve: (entry, _args, ctx) => {
        if (ctx.reads) ctx.reads.usesNames = true;
        return ctx.players.load(entry.playerId);
      },
    }),
  }),
});
