// A move between scopes that crashes after PostgreSQL committed it, before Redis moved the
// player's standings, is finished by the replay of its message, against the real PostgreSQL
// and Redis; a change that changes nothing costs no move.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AcceptedResult } from '../../src/domain/board-deltas.js';
import type { PlayerScopes } from '../../src/domain/scopes.js';
import { createPlayerScopesStore } from '../../src/postgres/player-scopes-store.js';
import { createResultsStore } from '../../src/postgres/results-store.js';
import { createBoardResetter } from '../../src/redis/board-resetter.js';
import { createBoardWriter } from '../../src/redis/board-writer.js';
import { boardKey } from '../../src/redis/keys.js';
import { applyResults } from '../../src/service/apply-results.js';
import { applyScopeChanges, type ScopeMoveDeps } from '../../src/service/apply-scopes.js';
import { testConfig } from '../support/env.js';
import { createSeason, openServices, type Services } from '../support/services.js';

const TTL = 2 * 24 * 3600;
let s: Services;
beforeAll(async () => {
  s = openServices(testConfig());
  await s.pg.sql`select 1`;
});
afterAll(async () => {
  await s?.close();
});

const PLAYER = String(744_000_000_000 + Math.floor(Math.random() * 1_000_000));

describe('applyScopeChanges', () => {
  it('finishes a move a crash interrupted, and skips a change that changes nothing', async () => {
    const season = await createSeason(s, { startsAt: new Date(Date.now() - 3_600_000), windows: ['SEASON', 'DAY'] });
    const store = createResultsStore(s.pg.sql);
    const scopes = createPlayerScopesStore(s.pg.sql);
    const result: AcceptedResult = {
      matchId: randomUUID(),
      playerId: PLAYER,
      seasonId: season.id,
      points: 70,
      endedAt: new Date(),
      partition: 0,
      offset: '0',
    };
    const resetter = createBoardResetter(s.redis, TTL);
    let crash = false;
    const deps: ScopeMoveDeps = {
      scopes,
      liveSeasons: async () => [season],
      currentStandings: store.currentStandings,
      boards: {
        reset: async (...args) => {
          if (crash) throw new Error('the process died');
          return resetter.reset(...args);
        },
      },
      windowTtlSeconds: TTL,
      now: Date.now,
    };
    const move = (to: PlayerScopes) => applyScopeChanges(deps, [{ playerId: PLAYER, scopes: to }]);
    const at = (scope: string, window: 'SEASON' | 'DAY' = 'SEASON') =>
      s.redis.zscore(
        boardKey({
          season,
          window,
          period: window === 'DAY' ? new Date().toISOString().slice(0, 10) : '',
          scope,
        }),
        PLAYER,
      );

    expect(await move({ region: 'BR', groups: ['owls'] })).toBe(1);
    await applyResults(
      { store, boards: createBoardWriter(s.redis, TTL), scopes, seasonOf: () => season, now: Date.now },
      [result],
    );
    const score = await s.redis.zscore(boardKey({ season, window: 'SEASON', period: '' }), PLAYER);
    expect(score).not.toBeNull();
    expect([await at('r:BR'), await at('g:owls'), await at('r:BR', 'DAY')]).toEqual([score, score, expect.any(String)]);

    // The move to US commits in PostgreSQL, then the process dies before Redis.
    crash = true;
    await expect(move({ region: 'US', groups: [] })).rejects.toThrow('the process died');
    expect([await at('r:BR'), await at('r:US')]).toEqual([score, null]);
    // The replay of the same message finds it pending and moves the player.
    crash = false;
    expect(await move({ region: 'US', groups: [] })).toBe(1);
    expect([await at('r:BR'), await at('g:owls'), await at('r:US'), await at('r:BR', 'DAY')]).toEqual([
      null,
      null,
      score,
      null,
    ]);
    // Replayed once more, it is done: nothing to move.
    expect(await move({ region: 'US', groups: [] })).toBe(0);
  });
});
