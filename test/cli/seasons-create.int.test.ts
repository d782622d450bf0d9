// `npm run cli -- seasons create`: the createSeason mutation's input as options, run as a real child
// process, beside the mutation itself on a real API: the same seasons, the same refusals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type TestApi } from '../support/api.js';
import { runCli } from '../support/cli.js';
import { testEnv, uniqueName } from '../support/env.js';

const DAY = 24 * 3600 * 1000;
const env = testEnv();
const cli = (...args: string[]) => runCli(env, ...args);

let api: TestApi;
let admin: string;
beforeAll(async () => {
  api = await startApi();
  admin = await api.key('admin');
});
afterAll(async () => {
  await api?.close();
});

type Input = Record<string, string | number | number[] | string[]>;

/** The CLI's options for a mutation input: each field in kebab case, a list comma-separated. */
const optionsOf = (input: Input) =>
  Object.entries(input).flatMap(([field, v]) => [
    `--${field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
    Array.isArray(v) ? v.join(',') : String(v),
  ]);

const at = (days: number) => new Date(Math.floor(Date.now() / 1000) * 1000 + days * DAY).toISOString();

const viaMutation = (input: Input) =>
  api.gql('mutation($i: CreateSeasonInput!) { createSeason(input: $i) { id } }', { i: input }, admin);

describe('seasons create', () => {
  it('creates the season the mutation creates from the same input, its id alone on the last line', async () => {
    const input: Input = {
      name: uniqueName('cli season'),
      startsAt: at(-1),
      endsAt: at(30),
      scoring: 'BEST',
      order: 'ASC',
      rankStyle: 'COMPETITION',
      maxPointsPerMatch: 5000,
      pointsBits: 20,
      timeUnitSeconds: 2,
      windows: ['SEASON', 'MONTH'],
      resetOffsetMinutes: 240,
    };
    const run = await cli('seasons', 'create', ...optionsOf(input));
    expect(run, run.stderr).toMatchObject({ code: 0, stderr: '' });
    const lines = run.stdout.trimEnd().split('\n');
    const id = Number(lines.at(-1));
    expect(lines.at(-2)).toBe(
      `created season ${id} "${input.name}": ACTIVE from ${input.startsAt} to ${input.endsAt}, ` +
        'BEST ASC COMPETITION, at most 5000 points a match; boards SEASON, MONTH, turning over 240 min after 00:00 UTC',
    );
    const mutation = await viaMutation(input);
    expect(mutation.errors).toBeUndefined();
    const [fromCli, fromMutation] = await Promise.all([
      api.s.seasons.get(id),
      api.s.seasons.get(mutation.data!.createSeason.id),
    ]);
    expect({ ...fromCli, id: 0 }).toEqual({ ...fromMutation, id: 0 });
    expect(fromCli).toMatchObject({ split: { pointsBits: 20, timeBits: 32, timeUnitSeconds: 2 } });
  });

  it('creates a season keeping CUSTOM periods from --period-hours, as the mutation; CUSTOM alone is refused', async () => {
    const input: Input = {
      name: uniqueName('cli custom'),
      startsAt: at(-1),
      endsAt: at(10),
      scoring: 'BEST',
      maxPointsPerMatch: 100,
      windows: ['SEASON', 'CUSTOM'],
      periodHours: 6,
    };
    const run = await cli('seasons', 'create', ...optionsOf(input));
    expect(run, run.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('; boards SEASON, CUSTOM, CUSTOM every 6 h from its start\n');
    const mutation = await viaMutation(input);
    expect(mutation.errors).toBeUndefined();
    const [fromCli, fromMutation] = await Promise.all([
      api.s.seasons.get(Number(run.stdout.trimEnd().split('\n').at(-1))),
      api.s.seasons.get(mutation.data!.createSeason.id),
    ]);
    expect({ ...fromCli, id: 0 }).toEqual({ ...fromMutation, id: 0 });
    expect(fromCli).toMatchObject({ windows: ['SEASON', 'CUSTOM'], periodHours: 6 });

    // Without --period-hours (the last option).
    const refused = await cli('seasons', 'create', ...optionsOf(input).slice(0, -2));
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('periodHours');
  });

  it('creates a season with score-range shards, as the mutation', async () => {
    const input = { name: uniqueName('cli shards'), startsAt: at(1), endsAt: at(8), scoring: 'SUM' };
    const run = await cli(
      'seasons',
      'create',
      ...optionsOf({ ...input, maxPointsPerMatch: 100, shardBounds: [50, 500] }),
    );
    expect(run, run.stderr).toMatchObject({ code: 0 });
    expect(run.stdout).toContain(': SCHEDULED from ');
    expect(run.stdout).toContain(', 3 shards at 50,500; boards SEASON, DAY, WEEK\n');
    expect((await api.s.seasons.get(Number(run.stdout.trimEnd().split('\n').at(-1))))?.shards?.bounds).toEqual([
      50, 500,
    ]);
  });

  it('creates a season of several boards from --boards, as the mutation; a bad board is its refusal', async () => {
    const boards = [
      { name: 'kills', scoring: 'SUM', maxValue: 100 },
      {
        name: 'royale',
        keys: [
          { stat: 'wins', max: 1 },
          { stat: 'kills', max: 100, order: 'DESC' },
        ],
      },
    ];
    const input = { name: uniqueName('cli boards'), startsAt: at(-1), endsAt: at(30) };
    const run = await cli('seasons', 'create', ...optionsOf(input), '--boards', JSON.stringify(boards));
    expect(run, run.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('; its boards kills, royale\n');
    const mutation = await viaMutation({ ...input, boards } as unknown as Input);
    expect(mutation.errors).toBeUndefined();
    const [fromCli, fromMutation] = await Promise.all([
      api.s.seasons.get(Number(run.stdout.trimEnd().split('\n').at(-1))),
      api.s.seasons.get(mutation.data!.createSeason.id),
    ]);
    const shape = (s: typeof fromCli) =>
      s?.boards?.map(({ board, stat, keys, scoring, maxPointsPerMatch, split }) => ({
        board,
        stat,
        keys,
        scoring,
        maxPointsPerMatch,
        split,
      }));
    expect(shape(fromCli)).toEqual(shape(fromMutation));
    expect(fromCli).toMatchObject({ board: 'kills', scoring: 'SUM', maxPointsPerMatch: 100 });

    const bad = [
      {
        name: 'a',
        keys: [
          { stat: 'x', max: 2 ** 16 },
          { stat: 'y', max: 2 ** 16 },
        ],
      },
    ];
    const refused = await cli('seasons', 'create', ...optionsOf(input), '--boards', JSON.stringify(bad));
    const error = (await viaMutation({ ...input, boards: bad } as unknown as Input)).errors?.[0];
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(error!.message);
    expect((await cli('seasons', 'create', ...optionsOf(input), '--boards', '{oops')).code).toBe(2);
  });

  it('creates a season with reward rules and group boards of the best N, as the mutation; a bad rule is refused', async () => {
    const rewards = [
      { name: 'champion', fromRank: 1, reward: { gems: 500 } },
      { name: 'country_best', per: 'REGION', fromRank: 1, reward: { flag: true } },
    ];
    const input = {
      name: uniqueName('cli rewards'),
      startsAt: at(-1),
      endsAt: at(30),
      scoring: 'BEST',
      maxPointsPerMatch: 10,
    };
    const run = await cli(
      'seasons',
      'create',
      ...optionsOf(input as Input),
      '--rewards',
      JSON.stringify(rewards),
      '--group-best-of',
      '3',
    );
    expect(run, run.stderr).toMatchObject({ code: 0 });
    expect(run.stdout).toContain('; rewards champion, country_best\n');
    const id = Number(run.stdout.trim().split('\n').at(-1));
    const [row] = await api.s.pg.sql<Array<{ rules: unknown[]; best: number }>>`
      select reward_rules as rules, group_best_of as best from seasons where id = ${id}`;
    expect(row).toEqual({
      rules: [
        { name: 'champion', board: 'points', ranks: { from: 1, to: 1 }, reward: { gems: 500 } },
        { name: 'country_best', board: 'points', per: 'REGION', ranks: { from: 1, to: 1 }, reward: { flag: true } },
      ],
      best: 3,
    });
    const bad = await cli('seasons', 'create', ...optionsOf(input as Input), '--rewards', '[{"name":"x","reward":{}}]');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('give exactly one of fromRank..toRank, topPercent and everyone');
    expect((await cli('seasons', 'create', ...optionsOf(input as Input), '--rewards', '{"a":1}')).code).toBe(2);
  });

  it('creates a repeating league season ranked by last season, with per-cohort rewards', async () => {
    const league = { name: uniqueName('cli-league').toLowerCase(), tiers: ['Bronze', 'Silver'], cohortSize: 20 };
    const input = {
      name: uniqueName('cli league'),
      startsAt: at(-1),
      endsAt: at(30),
      scoring: 'BEST',
      maxPointsPerMatch: 10,
    };
    const run = await cli(
      'seasons',
      'create',
      ...optionsOf(input as Input),
      '--league',
      JSON.stringify({ ...league, promote: 2, relegate: 2, placement: 'RANK' }),
      '--rewards',
      JSON.stringify([{ name: 'cohort_top', per: 'COHORT', fromRank: 1, toRank: 3, reward: { gems: 5 } }]),
      '--repeats',
    );
    expect(run, run.stderr).toMatchObject({ code: 0 });
    expect(run.stdout).toContain(`; rewards cohort_top; league ${league.name}; repeats\n`);
    const id = Number(run.stdout.trim().split('\n').at(-1));
    const [row] = await api.s.pg.sql<Array<{ league: Record<string, unknown>; repeats: boolean }>>`
      select league, repeats from seasons where id = ${id}`;
    expect(row).toEqual({ league: { ...league, promote: 2, relegate: 2, placement: 'RANK' }, repeats: true });
    const notJson = await cli('seasons', 'create', ...optionsOf(input as Input), '--league', '[1]');
    expect(notJson.code).toBe(2);
  });

  // Each refusal: the mutation's error message is the CLI's, exit 2 for BAD_USER_INPUT (1 otherwise).
  const valid: Input = { name: 'refused', startsAt: at(-1), endsAt: at(30), scoring: 'BEST', maxPointsPerMatch: 100 };
  it.concurrent.for<[string, Input]>([
    ['an end before the start', { endsAt: at(-2) }],
    ['an end in the past', { startsAt: at(-9), endsAt: at(-2) }],
    ['a blank name', { name: '   ' }],
    ['no points allowed', { maxPointsPerMatch: 0 }],
    ['a running total in ascending order', { scoring: 'SUM', order: 'ASC' }],
    ['more points than the point bits hold', { pointsBits: 8, maxPointsPerMatch: 1000 }],
    ['a season longer than the time bits hold', { timeBits: 10, timeUnitSeconds: 1 }],
    ['shard bounds out of order', { shardBounds: [50, 20] }],
    ['shards without the season to size them by', { shards: 3 }],
    ['windows without SEASON', { windows: ['DAY', 'WEEK'] }],
    ['an offset past the day', { resetOffsetMinutes: 1440 }],
  ])('refuses %s with the mutation’s message', async ([, change], { expect }) => {
    const input = { ...valid, ...change };
    const error = (await viaMutation(input)).errors?.[0] as { message: string; extensions: { code: string } };
    expect(error?.message).toBeDefined();
    const run = await cli('seasons', 'create', ...optionsOf(input));
    expect(run.stderr).toContain(`error: ${error.message}\n`);
    expect(run.code).toBe(error.extensions.code === 'BAD_USER_INPUT' ? 2 : 1);
    expect(run.stdout).toBe('');
  });

  it.concurrent.for<[string, string[], string]>([
    [
      'no --scoring',
      optionsOf(Object.fromEntries(Object.entries(valid).filter(([k]) => k !== 'scoring'))),
      '--scoring is required',
    ],
    [
      'an unknown scoring',
      optionsOf({ ...valid, scoring: 'MAX' }),
      '--scoring must be one of BEST, SUM, LAST, got "MAX"',
    ],
    ['a date that does not exist', optionsOf({ ...valid, endsAt: '2026-11-31T00:00:00Z' }), '--ends-at: DateTime must'],
    ['a date without a zone', optionsOf({ ...valid, startsAt: '2026-11-30T00:00:00' }), '--starts-at: DateTime must'],
    ['points that are not an integer', optionsOf({ ...valid, maxPointsPerMatch: '1e3' }), 'must be an integer'],
  ])('exits 2 with the usage text on %s', async ([, args, message], { expect }) => {
    const run = await cli('seasons', 'create', ...args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stderr).toContain('seasons create --name <text>');
  });
});
