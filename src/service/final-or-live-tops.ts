import type { Board } from '../domain/board.js';
import type { RankedStanding } from '../domain/ranking.js';
import type { Season } from '../domain/season.js';
import type { TopSource } from './top-snapshot.js';

/**
 * A TopSource that answers a finalized season's boards from its final standings (PostgreSQL):
 * a watched board (topChanged) outlives its season's close, and its slot keeps the season as it
 * was first read, so the season is looked up again (cached) at each read.
 */
export function finalOrLiveTops(deps: {
  seasonById(id: number): Promise<Season | undefined>;
  live: TopSource;
  final: {
    top(board: Board, offset: number, limit: number): Promise<RankedStanding[]>;
    size(board: Board): Promise<number>;
  };
}): TopSource {
  return {
    async snapshot(b, limit) {
      const season = (await deps.seasonById(b.season.id)) ?? b.season;
      if (!season.finalizedAt) return deps.live.snapshot(b, limit);
      const board = { ...b, season };
      const [entries, size] = await Promise.all([deps.final.top(board, 0, limit), deps.final.size(board)]);
      return { version: 0, size, entries };
    },
  };
}
