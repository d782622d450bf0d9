// The season scheduler over the real PostgreSQL store, advisory lock and close procedure. Each
// scheduler here sees only this file's seasons: ladder_test holds every earlier run's seasons.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  validateSeasonDefinition,
  type Season,
  type SeasonDefinition,
  type SeasonStatus,
} from '../../src/domain/season.js';
import { ADVISORY_LOCKS, withTryAdvisoryLock } from '../../src/postgres/advisory-lock.js';
import { createSeasonLifecycleStore } from '../../src/postgres/season-lifecycle-store.js';
import { createSeasonKeys } from '../../src/redis/season-keys.js';
import { closeSeason } from '../../src/service/close-season.js';
import { createSeasonScheduler, type SchedulerStore } from '../../src/service/season-scheduler.js';
import { testConfig } from '../support/env.js';
import { startRedisServer } from '../support/redis-server.js';
import { ingestDirect, tieHeavyResults } from '../support/season-boards.js';
import { openServices, waitFor, type Services } from '../support/services.js';

let redisServer: Awaited<ReturnType<typeof startRedisServer>>;
let s: Services;
const TTL = 90 * 24 * 3600;
const DAY = 24 * 3600 * 1000;

beforeAll(async () => {
  redisServer = await startRedisServer();
  s = openServices(testConfig({ REDIS_URL: redisServer.url }));
});

afterAll(async () => {
  await s?.close();
  await redisServer?.stop();
});

async function insertSeason(status: SeasonStatus, startsInMs: number, endsInMs: number): Promise<Season> {
  const now = Math.floor(Date.now() / 1000) * 1000;
  const def: SeasonDefinition = {
    name: 'scheduled',
    startsAt: new Date(now + startsInMs),
    endsAt: new Date(now + endsInMs),
    scoring: 'BEST',
    order: 'DESC',
    rankStyle: 'ORDINAL',
    maxPointsPerMatch: 100,
  };
  return s.seasons.insert(def, validateSeasonDefinition(def), status);
}

/** A scheduler over the real store, restricted to `ids`; closes wait on nothing but the real steps. */
function scheduler(ids: ReadonlySet<number>, gate: Promise<void> = Promise.resolve()) {
  const real = createSeasonLifecycleStore(s.pg);
  const store: SchedulerStore = {
    listUnfinished: async (since) => (await real.listUnfinished(since)).filter((x) => ids.has(x.id)),
    activate: (id) => real.activate(id),
    ensurePartitions: (plan) => real.ensurePartitions(plan),
  };
  const closed: number[] = [];
  const closedAt = new Map<number, number>();
  return {
    closed,
    closedAt,
    scheduler: createSeasonScheduler({
      store,
      tryLock: (fn) => withTryAdvisoryLock(s.pg.sql, ADVISORY_LOCKS.seasonScheduler, fn),
      intervalMs: 100,
      close: async (id, reason, signal) => {
        await gate;
        closed.push(id);
        closedAt.set(id, Date.now());
        return closeSeason(
          {
            store: real,
            keys: createSeasonKeys(s.redis),
            invalidate: () => {},
            ingest: { endOffsets: async () => [], committedOffsets: async () => new Map() },
            cacheTtlMs: 50,
            graceMs: 50,
            drainTimeoutMs: 1_000,
          },
          id,
          { actor: 'scheduler', reason },
          signal,
        );
      },
    }),
  };
}

const keysOf = (seasonId: number) => s.redis.keys(`lb:{s${seasonId}}*`);
const finalRows = async (seasonId: number) =>
  (
    await s.pg.sql<[{ n: number }]>`select count(*)::int as n from season_final_standings where season_id = ${seasonId}`
  )[0].n;
const standingRows = async (seasonId: number) =>
  (await s.pg.sql<[{ n: number }]>`select count(*)::int as n from standings where season_id = ${seasonId}`)[0].n;

describe('the season scheduler', () => {
  it('closes and finalizes a season when its end passes, and activates a scheduled one when it starts, with nobody calling anything', async () => {
    const ending = await insertSeason('ACTIVE', -DAY, 3_000);
    await ingestDirect(s, ending, tieHeavyResults(ending, { players: 300, seed: 1, maxPoints: 10 }), TTL);
    const starting = await insertSeason('SCHEDULED', 1_000, 10 * DAY);
    expect((await keysOf(ending.id)).length).toBeGreaterThan(1);
    const { scheduler: sch, closedAt } = scheduler(new Set([ending.id, starting.id]));
    sch.start();
    try {
      await waitFor(
        'the scheduled season to become ACTIVE',
        async () => (await s.seasons.get(starting.id))!.status === 'ACTIVE',
        10_000,
      );
      await waitFor(
        'the ended season to be final',
        async () => (await s.seasons.get(ending.id))!.finalizedAt != null,
        15_000,
      );
      await waitFor('its Redis keys to be removed', async () => (await keysOf(ending.id)).length === 0, 5_000);
    } finally {
      await sch.stop();
    }
    // Ticks ran every 100 ms all along, and none closed the season before its end.
    expect(closedAt.get(ending.id)).toBeGreaterThanOrEqual(ending.endsAt.getTime());
    expect(await s.seasons.get(ending.id)).toMatchObject({ status: 'CLOSED' });
    expect(await finalRows(ending.id)).toBe(await standingRows(ending.id));
    expect((await s.seasons.get(starting.id))!.finalizedAt).toBeNull();
  });

  it('creates the history partitions of today and the days ahead before any result arrives', async () => {
    const season = await insertSeason('ACTIVE', -DAY, 10 * DAY);
    const { scheduler: sch } = scheduler(new Set([season.id]));
    await sch.tick();
    const day = (offset: number) => new Date(Date.now() + offset * DAY).toISOString().slice(0, 10).replaceAll('-', '');
    const attached = async (name: string) =>
      (await s.pg.sql`select 1 from pg_inherits where inhrelid = to_regclass(${name})`).length === 1;
    for (const offset of [0, 1, 2]) expect(await attached(`match_results_s${season.id}_${day(offset)}`)).toBe(true);
    expect(await attached(`match_results_s${season.id}_${day(3)}`)).toBe(false);
    for (const offset of [0, 1, 2, 3]) expect(await attached(`match_claims_${day(offset)}`)).toBe(true);
  });

  it('lets one instance act at a time: a second tick while the first holds the lock does nothing', async () => {
    const season = await insertSeason('CLOSED', -DAY, DAY);
    let open!: () => void;
    const gate = new Promise<void>((r) => {
      open = r;
    });
    const a = scheduler(new Set([season.id]), gate);
    const b = scheduler(new Set([season.id]));
    const first = a.scheduler.tick();
    await waitFor('the first tick to reach the close', async () => a.closed.length === 0 && (await lockHeld()), 5_000);
    expect(await b.scheduler.tick()).toEqual({ acquired: false, activated: [], closed: [], failed: [] });
    open();
    expect(await first).toMatchObject({ acquired: true, closed: [season.id], failed: [] });
    expect(b.closed).toEqual([]);
    expect((await s.seasons.get(season.id))!.finalizedAt).toBeInstanceOf(Date);
  });

  it.each([
    ['closed but never finalized (a crash before the final standings)', false],
    ['finalized with its Redis keys still there (a crash before the cleanup)', true],
  ])('finishes a close that was cut short: %s', async (_name, finalizedFirst) => {
    const season = await insertSeason('ACTIVE', -DAY, DAY);
    await ingestDirect(s, season, tieHeavyResults(season, { players: 200, seed: 2, maxPoints: 10 }), TTL);
    const store = createSeasonLifecycleStore(s.pg);
    await store.markClosed(season.id, { actor: 'test', reason: 'crash' });
    if (finalizedFirst) await store.finalize(season, { actor: 'test', reason: 'crash' });
    expect((await keysOf(season.id)).length).toBeGreaterThan(1);

    expect(await scheduler(new Set([season.id])).scheduler.tick()).toMatchObject({ acquired: true, failed: [] });
    expect(await keysOf(season.id)).toEqual([]);
    expect((await s.seasons.get(season.id))!.finalizedAt).toBeInstanceOf(Date);
    expect(await finalRows(season.id)).toBe(await standingRows(season.id));
  });

  it('never reopens a season closed between its read and its activation', async () => {
    const season = await insertSeason('SCHEDULED', -1_000, DAY);
    const store = createSeasonLifecycleStore(s.pg);
    await store.markClosed(season.id, { actor: 'test', reason: 'closed before it opened' });
    expect(await store.activate(season.id)).toBe(false);
    expect((await s.seasons.get(season.id))!.status).toBe('CLOSED');
  });
});

/** Whether some session holds the scheduler's advisory lock. */
async function lockHeld(): Promise<boolean> {
  const [row] = await s.pg.sql<[{ held: boolean }]>`
    select exists (select 1 from pg_locks where locktype = 'advisory' and objid = ${ADVISORY_LOCKS.seasonScheduler} and granted
                  and database = (select oid from pg_database where datname = current_database())) as held`;
  return row.held;
}
