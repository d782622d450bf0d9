// Rewards (issue 32, item 4), through the real services: a season declares rules by rank, top
// percent, everyone, per region; its close grants each exactly once in PostgreSQL from the final
// standings, sends each to the rewards topic keyed by its idempotency key, pushes rewardGranted,
// and leaves blocked and removed players out. A close SIGKILLed at random points and run again
// grants the same rewards once and sends each at least once.
import { randomUUID } from 'node:crypto';
import type { Kafka } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RewardRule } from '../../src/domain/rewards.js';
import type { Season, Window } from '../../src/domain/season.js';
import { createRewardsPublisher } from '../../src/kafka/rewards-producer.js';
import { createRewardsStore, grantPeriodRewards } from '../../src/postgres/rewards-store.js';
import { grantEndedPeriods } from '../../src/service/period-rewards.js';
import { errorOf, startApi, type TestApi } from '../support/api.js';
import { runCli, startCli } from '../support/cli.js';
import { testConfig, testEnv, uniqueName } from '../support/env.js';
import { ingestDirect, tieHeavyResults } from '../support/season-boards.js';
import { createSeason, createTopics, openServices, waitFor, waitUntilCaughtUp } from '../support/services.js';

let api: TestApi;
let admin: string;
let submitter: string;

beforeAll(async () => {
  api = await startApi();
  [admin, submitter] = [await api.key('admin'), await api.key('submit')];
});
afterAll(async () => {
  await api?.close();
});

const P = (n: number) => String(755_000_000_000 + n);

/** Every key on `topic` from its start, gathered until `done` says enough (or the timeout). */
async function keysOn(kafka: Kafka, topic: string, done: (keys: string[]) => boolean): Promise<string[]> {
  const consumer = kafka.consumer({ groupId: uniqueName('test-rewards-reader') });
  const keys: string[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        keys.push(message.key!.toString());
      },
    });
    await waitFor('the rewards on Kafka', async () => done(keys), 30_000);
  } finally {
    await consumer.disconnect();
  }
  return keys;
}

/** The rewards an independent reading of the rules gives a board's final ranks: key → rank. */
function expectedGrants(
  seasonId: number,
  rules: readonly RewardRule[],
  ranked: ReadonlyArray<{ playerId: string; rank: number }>,
  blocked: ReadonlySet<string> = new Set(),
): Map<string, number> {
  const out = new Map<string, number>();
  for (const rule of rules) {
    const top = 'topPercent' in rule ? Math.ceil((ranked.length * rule.topPercent) / 100) : 0;
    for (const { playerId, rank } of ranked) {
      const wins =
        'ranks' in rule ? rank >= rule.ranks.from && rank <= rule.ranks.to : 'topPercent' in rule ? rank <= top : true;
      if (wins && !blocked.has(playerId)) out.set(`${seasonId}/${rule.board}/SEASON///${playerId}/${rule.name}`, rank);
    }
  }
  return out;
}

describe('rewards', () => {
  it('grants each rule once at the close, to Kafka and live, never to a blocked or removed player', async () => {
    const rules = [
      { name: 'champion', fromRank: 1, reward: { gems: 500 } },
      { name: 'podium', fromRank: 2, toRank: 3, reward: { gems: 100 } },
      { name: 'top_half', topPercent: 50, reward: { chest: 'silver' } },
      { name: 'everyone', everyone: true, reward: { badge: 's1' } },
      { name: 'country_best', per: 'REGION', fromRank: 1, reward: { flag: true } },
      { name: 'top_killer', board: 'kills', fromRank: 1, reward: { title: 'reaper' } },
    ];
    const created = await api.gql(
      `mutation($input: CreateSeasonInput!) { createSeason(input: $input) { id rewards { name board per fromRank toRank topPercent everyone reward } } }`,
      {
        input: {
          name: 'rewards',
          startsAt: new Date(Date.now() - 3_600_000),
          endsAt: new Date(Date.now() + 86_400_000),
          boards: [
            { name: 'points', maxValue: 1000 },
            { name: 'kills', scoring: 'SUM', maxValue: 100 },
          ],
          rewards: rules,
        },
      },
      admin,
    );
    expect(created.errors).toBeUndefined();
    const s = created.data?.['createSeason'].id as number;
    expect(created.data?.['createSeason'].rewards[1]).toEqual({
      name: 'podium',
      board: 'points',
      per: null,
      fromRank: 2,
      toRank: 3,
      topPercent: null,
      everyone: false,
      reward: { gems: 100 },
    });

    const live = api.subscribe(`subscription($p: ID!) { rewardGranted(playerId: $p) { key rule rank reward } }`, {
      p: P(2),
    });
    // P(1) the best, then blocked; P(9) removed; P(2) BR's best once P(1) is out of the rewards.
    const players = Array.from({ length: 10 }, (_, i) => ({
      playerId: P(i + 1),
      stats: [
        { name: 'points', value: 1000 - i * 50 },
        { name: 'kills', value: i === 9 ? 100 : 10 + i },
      ],
      scopes: { region: i % 2 === 0 ? 'BR' : 'US' },
    }));
    const sub = await api.gql(
      'mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { accepted } }',
      { input: { matchId: randomUUID(), seasonId: s, endedAt: new Date(), results: players } },
      submitter,
    );
    expect(sub.errors).toBeUndefined();
    await waitUntilCaughtUp(api.s, 'the match');
    const block = await api.gql(
      `mutation($input: PlayerBlockInput!) { blockPlayer(input: $input) { blocked } }`,
      { input: { seasonId: s, playerId: P(1), reason: 'boosting' } },
      admin,
    );
    expect(block.errors).toBeUndefined();
    const removal = await api.gql(
      `mutation($input: RemovePlayerResultsInput!) { removePlayerResults(input: $input) { removedResults } }`,
      { input: { seasonId: s, playerId: P(10), reason: 'aimbot' } },
      admin,
    );
    expect(removal.data?.['removePlayerResults']).toEqual({ removedResults: 2 });

    const closed = await api.gql(`mutation($s: Int!) { closeSeason(id: $s) { status } }`, { s }, admin);
    expect(closed.errors).toBeUndefined();

    // The oracle, from the final ranks as the closed season reads them.
    const ranksOf = async (board: string, scope?: Record<string, string>) => {
      const res = await api.gql(
        `query($s: Int!, $b: String, $scope: ScopeInput) { leaderboard(seasonId: $s, board: $b, scope: $scope) { top(limit: 100) { playerId rank } } }`,
        { s, b: board, scope: scope ?? null },
      );
      return res.data?.['leaderboard'].top as Array<{ playerId: string; rank: number }>;
    };
    const blocked = new Set([P(1)]);
    const stored = (r: (typeof rules)[number]) =>
      ({
        name: r.name,
        board: r.board ?? 'points',
        reward: r.reward,
        ...(r.fromRank ? { ranks: { from: r.fromRank, to: r.toRank ?? r.fromRank } } : {}),
        ...(r.topPercent ? { topPercent: r.topPercent } : {}),
        ...(r.everyone ? { everyone: true } : {}),
      }) as RewardRule;
    const whole = rules.filter((r) => !r.per);
    const expected = new Map([
      ...expectedGrants(s, whole.filter((r) => !r.board).map(stored), await ranksOf('points'), blocked),
      ...expectedGrants(s, whole.filter((r) => r.board).map(stored), await ranksOf('kills'), blocked),
    ]);
    for (const region of ['BR', 'US'])
      for (const [key, rank] of expectedGrants(s, [stored(rules[4]!)], await ranksOf('points', { region }), blocked))
        expected.set(key.replace('/SEASON///', `/SEASON//r:${region}/`), rank);

    const rows = await api.s.pg.sql<Array<{ key: string; rank: number; published: boolean }>>`
      select key, rank, published_at is not null as published from rewards where season_id = ${s}`;
    expect(new Map(rows.map((r) => [r.key, r.rank]))).toEqual(expected);
    expect(rows.every((r) => r.published)).toBe(true);
    // Nothing for the blocked player, nor for the removed one (no standing left, no rank).
    expect(rows.filter((r) => r.key.includes(`/${P(1)}/`) || r.key.includes(`/${P(10)}/`))).toEqual([]);
    // The top killer was P(10), removed: the rule goes to the next best, P(9).
    expect(expected.has(`${s}/kills/SEASON///${P(9)}/top_killer`)).toBe(true);

    const onKafka = await keysOn(api.s.kafka, api.config.kafka.rewardsTopic, (keys) =>
      [...expected.keys()].every((k) => keys.includes(k)),
    );
    expect(new Set(onKafka.filter((k) => k.startsWith(`${s}/`)))).toEqual(new Set(expected.keys()));

    // P(1), blocked, keeps rank 1 on the board and gets nothing: nobody is champion; P(2) is second.
    expect([...expected.keys()].some((k) => k.endsWith('/champion'))).toBe(false);
    const pushed = await live.waitFor('a reward pushed', (e) => e.data?.['rewardGranted']?.rule === 'podium');
    expect(pushed.data?.['rewardGranted']).toMatchObject({ rank: 2, reward: { gems: 100 } });
    live.close();

    const mine = await api.gql(
      `query($p: ID!, $s: Int) { rewards(playerId: $p, seasonId: $s) { key rule claimedAt } }`,
      {
        p: P(2),
        s,
      },
    );
    const podium = (mine.data?.['rewards'] as Array<{ key: string; rule: string }>).find((r) => r.rule === 'podium')!;
    const claim = (key: string) =>
      api.gql(`mutation($k: String!) { claimReward(key: $k) { claimedAt } }`, { k: key }, submitter);
    const first = await claim(podium.key);
    const again = await claim(podium.key);
    expect(first.data?.['claimReward'].claimedAt).toEqual(expect.any(String));
    expect(again.data?.['claimReward']).toEqual(first.data?.['claimReward']);
    expect(errorOf(await claim('no/such/key'))).toEqual(['BAD_USER_INPUT', 'key']);
  }, 60_000);

  it('refuses bad rules with a stable code', async () => {
    const create = (rewards: unknown[]) =>
      api.gql(
        `mutation($input: CreateSeasonInput!) { createSeason(input: $input) { id } }`,
        {
          input: {
            name: 'bad rewards',
            startsAt: new Date(),
            endsAt: new Date(Date.now() + 86_400_000),
            maxPointsPerMatch: 10,
            rewards,
          },
        },
        admin,
      );
    for (const rule of [
      { name: 'both', fromRank: 1, topPercent: 5, reward: {} },
      { name: 'none', reward: {} },
      { name: 'Bad Name', everyone: true, reward: {} },
      { name: 'ranks', fromRank: 3, toRank: 2, reward: {} },
      { name: 'pct', topPercent: 0, reward: {} },
      { name: 'board', board: 'nope', everyone: true, reward: {} },
    ])
      expect(errorOf(await create([rule])), rule.name).toEqual(['BAD_USER_INPUT', 'rewards']);
    expect(errorOf(await create([{ name: 'big', everyone: true, reward: { x: 'y'.repeat(2000) } }]))).toEqual([
      'BAD_USER_INPUT',
      'metadata',
    ]);
  });

  it('grants DAY rules for each ended day once, from its standings, and not the day still running', async () => {
    const config = testConfig(testEnv());
    const s = openServices(config);
    try {
      await createTopics(s.kafka, config);
      const rules: RewardRule[] = [
        { name: 'daily_top', board: 'points', window: 'DAY', ranks: { from: 1, to: 2 }, reward: { coins: 10 } },
      ];
      const season = await createSeason(s, {
        name: 'daily rewards',
        daysAgo: 3,
        rankStyle: 'COMPETITION',
        windows: ['SEASON', 'DAY'],
        rewards: rules,
      });
      await ingestDirect(s, season, tieHeavyResults(season, { players: 200, seed: 77, maxPoints: 8 }), 90 * 24 * 3600);
      const deps = {
        grant: (board: Season, window: Window, period: string) => grantPeriodRewards(s.pg.sql, board, window, period),
        publish: createRewardsPublisher(s.kafka, config.kafka.rewardsTopic, createRewardsStore(s.pg.sql)).publish,
        drained: async () => {},
        delayMs: 0,
      };
      const granted = await grantEndedPeriods(deps, [season], new Date());
      // COMPETITION ranks need only points: 1 + the players with more points on that day's board.
      const days = await s.pg.sql<Array<{ period: string; playerId: string; points: number }>>`
        select period, player_id::text as "playerId", points::int4 as points from standings
        where season_id = ${season.id} and "window" = 'DAY'`;
      const today = new Date().toISOString().slice(0, 10);
      const expected = new Set<string>();
      for (const d of days) {
        if (d.period >= today) continue;
        const rank = 1 + days.filter((o) => o.period === d.period && o.points > d.points).length;
        if (rank <= 2) expected.add(`${season.id}/points/DAY/${d.period}//${d.playerId}/daily_top`);
      }
      const rows = await s.pg.sql<Array<{ key: string }>>`select key from rewards where season_id = ${season.id}`;
      expect(new Set(rows.map((r) => r.key))).toEqual(expected);
      expect(granted).toBe(expected.size);
      expect(expected.size).toBeGreaterThan(2);
      // Looked at again (the next tick): every ended day was granted, nothing more.
      expect(await grantEndedPeriods(deps, [season], new Date())).toBe(0);
      const unpublished = await s.pg.sql`select 1 from rewards where season_id = ${season.id} and published_at is null`;
      expect(unpublished.length).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('a close killed at random points, then run again, grants every reward once, sends each at least once, and moves each promoted league player once', async () => {
    const env = testEnv({ SEASON_CACHE_TTL_MS: '300', SEASON_CLOSE_GRACE_MS: '200' });
    const config = testConfig(env);
    const s = openServices(config);
    try {
      await createTopics(s.kafka, config);
      const rules: RewardRule[] = [
        { name: 'podium', board: 'points', ranks: { from: 1, to: 3 }, reward: { gems: 50 } },
        { name: 'top_tenth', board: 'points', topPercent: 10, reward: { chest: 'gold' } },
        { name: 'everyone', board: 'points', everyone: true, reward: { badge: 'played' } },
      ];
      // A league season too: its promotions happen in the same finalize transaction as the grants.
      const league = {
        name: uniqueName('killed').toLowerCase(),
        tiers: ['A', 'B', 'C'],
        cohortSize: 50,
        promote: 5,
        relegate: 5,
      };
      const season = await createSeason(s, {
        name: 'rewards under SIGKILL',
        rankStyle: 'COMPETITION',
        rewards: rules,
        league,
      });
      await ingestDirect(s, season, tieHeavyResults(season, { players: 400, seed: 32, maxPoints: 30 }), 90 * 24 * 3600);
      const args = ['seasons', 'close', '--season', String(season.id), '--reason', 'season over'];
      // Killed 4 times at random points (the close waits ~0.5 s, then finalizes and publishes).
      for (let k = 0; k < 4; k++) {
        const run = startCli(env, ...args);
        const timer = setTimeout(() => run.child.kill('SIGKILL'), 300 + Math.floor(Math.random() * 1_500));
        await run.done;
        clearTimeout(timer);
      }
      const last = await runCli(env, ...args);
      expect(last.code, last.stderr).toBe(0);

      const ranked = await s.pg.sql<Array<{ playerId: string; rank: number }>>`
        select player_id::text as "playerId", rank from season_final_standings
        where season_id = ${season.id} and "window" = 'SEASON' and period = ''`;
      const expected = expectedGrants(season.id, rules, ranked);
      const rows = await s.pg.sql<Array<{ key: string; rank: number; published: boolean }>>`
        select key, rank, published_at is not null as published from rewards where season_id = ${season.id}`;
      expect(rows.length).toBe(expected.size);
      expect(new Map(rows.map((r) => [r.key, r.rank]))).toEqual(expected);
      expect(rows.every((r) => r.published)).toBe(true);
      const onKafka = await keysOn(s.kafka, config.kafka.rewardsTopic, (keys) => new Set(keys).size >= expected.size);
      expect(new Set(onKafka)).toEqual(new Set(expected.keys()));

      // Every cohort's best 5 by final position moved up exactly once (tier B, not C); nobody else moved.
      const members = await s.pg.sql<Array<{ playerId: string; cohort: number; position: number }>>`
        select m.player_id::text as "playerId", m.cohort, f.position from league_members m
        join season_final_standings f on f.season_id = m.season_id and f.player_id = m.player_id
          and f."window" = 'SEASON' and f.period = ''
        where m.season_id = ${season.id}`;
      expect(members.length).toBe(ranked.length);
      const promoted = new Set<string>();
      for (const cohort of new Set(members.map((m) => m.cohort)))
        members
          .filter((m) => m.cohort === cohort)
          .sort((a, b) => a.position - b.position)
          .slice(0, 5)
          .forEach((m) => promoted.add(m.playerId));
      const moves = await s.pg.sql<Array<{ playerId: string; toTier: number }>>`
        select player_id::text as "playerId", to_tier as "toTier" from league_moves where season_id = ${season.id}`;
      expect(new Set(moves.map((m) => m.playerId))).toEqual(promoted);
      expect(moves.every((m) => m.toTier === 1)).toBe(true);
      const tiers = await s.pg.sql<Array<{ playerId: string; tier: number }>>`
        select player_id::text as "playerId", tier from league_tiers where league = ${league.name}`;
      expect(new Map(tiers.map((t) => [t.playerId, t.tier]))).toEqual(
        new Map(members.map((m) => [m.playerId, promoted.has(m.playerId) ? 1 : 0])),
      );
    } finally {
      await s.close();
    }
  }, 120_000);
});
