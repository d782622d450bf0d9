// `seasons create`: a new season, the createSeason mutation's input as options, stored by the same
// service (src/service/seasons.ts newSeasonOf and createSeason), which checks it as it checks the mutation's.
import {
  ALL_WINDOWS,
  boardName,
  boardsOf,
  windowsOf,
  type RankStyle,
  type ScoringMode,
  type SortOrder,
} from '../domain/season.js';
import { createSeason, newSeasonOf, type NewSeasonInput } from '../service/seasons.js';
import { parse, UsageError, withApp, type Command } from './command.js';

const SCORING = ['BEST', 'SUM', 'LAST'] as const satisfies readonly ScoringMode[];
const ORDERS = ['DESC', 'ASC'] as const satisfies readonly SortOrder[];
const RANK_STYLES = ['ORDINAL', 'COMPETITION'] as const satisfies readonly RankStyle[];

const options = {
  name: { type: 'string' },
  'starts-at': { type: 'string' },
  'ends-at': { type: 'string' },
  scoring: { type: 'string' },
  order: { type: 'string' },
  'rank-style': { type: 'string' },
  'max-points-per-match': { type: 'string' },
  'points-bits': { type: 'string' },
  'time-bits': { type: 'string' },
  'time-unit-seconds': { type: 'string' },
  'shard-bounds': { type: 'string' },
  shards: { type: 'string' },
  'shards-from-season-id': { type: 'string' },
  windows: { type: 'string' },
  'reset-offset-minutes': { type: 'string' },
  'period-hours': { type: 'string' },
  boards: { type: 'string' },
  rewards: { type: 'string' },
  'group-best-of': { type: 'string' },
  league: { type: 'string' },
  repeats: { type: 'boolean' },
} as const;

type Values = { [K in keyof typeof options]?: (typeof options)[K]['type'] extends 'boolean' ? boolean : string };

type TextOption = Exclude<keyof Values, 'repeats'>;

function required(values: Values, name: TextOption): string {
  const v = values[name];
  if (v === undefined) throw new UsageError(`--${name} is required`);
  return v;
}

function oneOf<T extends string>(name: string, raw: string | undefined, allowed: readonly T[]): T | undefined {
  if (raw === undefined || (allowed as readonly string[]).includes(raw)) return raw as T | undefined;
  throw new UsageError(`--${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
}

/** An integer as GraphQL's Int reads it; its range is the service's to check. */
function int(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^-?\d{1,10}$/.test(raw)) throw new UsageError(`--${name} must be an integer, got "${raw}"`);
  return Number(raw);
}

/** An instant exactly as the mutation's DateTime reads it (ISO-8601 with a zone, every field in range). */
async function instant(name: string, raw: string): Promise<Date> {
  // Loaded here: --help and usage errors need none of GraphQL's modules.
  const { parseDateTime } = await import('../graphql/scalars.js');
  try {
    return parseDateTime(raw);
  } catch (err) {
    throw new UsageError(`--${name}: ${(err as Error).message}`);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An option's JSON text, parsed; `expected` names what it must be in the usage error. */
function json(name: string, raw: string, expected: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw new UsageError(`--${name} must be JSON: ${expected}`);
  }
}

/** A JSON object, as the mutation takes it (its rules are the service's to check). */
function jsonObject(name: string, raw: string | undefined, what: string): Record<string, unknown> | undefined {
  if (raw === undefined) return undefined;
  const value = json(name, raw, `one ${what} object, as the mutation takes it`);
  if (!isObject(value)) throw new UsageError(`--${name} must be one JSON ${what} object`);
  return value;
}

/** A JSON array of objects, as the mutation takes it (their rules are the service's to check). */
function jsonObjects(name: string, raw: string | undefined, what: string): Array<Record<string, unknown>> | undefined {
  if (raw === undefined) return undefined;
  const list = json(name, raw, `an array of ${what}, as the mutation takes them`);
  if (!Array.isArray(list) || !list.every(isObject))
    throw new UsageError(`--${name} must be a JSON array of ${what} objects`);
  return list;
}

/**
 * --boards: the mutation's `boards` as JSON, an array of BoardInput objects
 * (`[{"name":"kills","scoring":"SUM","maxValue":100}]`).
 */
function boardsOption(raw: string | undefined): NewSeasonInput['boards'] {
  const boards = jsonObjects('boards', raw, 'board');
  if (boards && !boards.every((b) => b.keys == null || Array.isArray(b.keys)))
    throw new UsageError('--boards must be a JSON array of board objects (keys, when given, an array)');
  return boards as NewSeasonInput['boards'];
}

/** The options as the mutation's input (newSeasonOf gives both the same defaults). */
async function seasonInput(values: Values): Promise<NewSeasonInput> {
  const boards = boardsOption(values.boards);
  // With boards, each board has its own range (and BEST unless it says SUM).
  const ifNoBoards = (name: TextOption) => (boards ? values[name] : required(values, name));
  return {
    name: required(values, 'name'),
    startsAt: await instant('starts-at', required(values, 'starts-at')),
    endsAt: await instant('ends-at', required(values, 'ends-at')),
    scoring: oneOf('scoring', ifNoBoards('scoring'), SCORING),
    order: oneOf('order', values.order, ORDERS),
    rankStyle: oneOf('rank-style', values['rank-style'], RANK_STYLES),
    maxPointsPerMatch: int('max-points-per-match', ifNoBoards('max-points-per-match')),
    boards,
    pointsBits: int('points-bits', values['points-bits']),
    timeBits: int('time-bits', values['time-bits']),
    timeUnitSeconds: int('time-unit-seconds', values['time-unit-seconds']),
    shardBounds: values['shard-bounds']?.split(',').map((b) => int('shard-bounds', b.trim())!),
    shards: int('shards', values.shards),
    shardsFromSeasonId: int('shards-from-season-id', values['shards-from-season-id']),
    windows: values.windows?.split(',').map((w) => oneOf('windows', w.trim(), ALL_WINDOWS)!),
    resetOffsetMinutes: int('reset-offset-minutes', values['reset-offset-minutes']),
    periodHours: int('period-hours', values['period-hours']),
    // --rewards '[{"name":"champion","fromRank":1,"reward":{"gems":500}}]': RewardRuleInput objects.
    rewards: jsonObjects('rewards', values.rewards, 'reward rule') as NewSeasonInput['rewards'],
    groupBestOf: int('group-best-of', values['group-best-of']),
    // --league '{"name":"arena","tiers":["Bronze","Silver"],"cohortSize":50,"promote":5,"relegate":5}'
    league: jsonObject('league', values.league, 'LeagueInput') as NewSeasonInput['league'],
    repeats: values.repeats,
  };
}

export const seasonsCreate: Command = {
  args:
    '--name <text> --starts-at <ISO-8601> --ends-at <ISO-8601> ' +
    '(--scoring BEST|SUM|LAST --max-points-per-match <n> | --boards <JSON array of BoardInput>) ' +
    '[--order DESC|ASC] [--rank-style ORDINAL|COMPETITION] [--points-bits <n>] [--time-bits <n>] ' +
    '[--time-unit-seconds <n>] [--shard-bounds <n,n,...> | --shards <n> --shards-from-season-id <id>] ' +
    '[--windows SEASON,DAY,WEEK,MONTH,CUSTOM] [--reset-offset-minutes <0..1439>] [--period-hours <1..8784>] ' +
    '[--rewards <JSON array of RewardRuleInput>] [--group-best-of <n>] [--league <JSON LeagueInput>] [--repeats]',
  summary: 'create a season (the createSeason mutation, checked the same way); its last output line is the new id',
  audit: 'create_season',
  async run(argv, ctx) {
    const input = await seasonInput(parse(argv, options).values);
    const season = await withApp(ctx.config(), (app) => createSeason(app.seasonsRepo, newSeasonOf(input), new Date()));
    const shards = season.shards ? `, ${season.shards.tags.length} shards at ${season.shards.bounds.join(',')}` : '';
    ctx.out(
      `created season ${season.id} "${season.name}": ${season.status} from ${season.startsAt.toISOString()} ` +
        `to ${season.endsAt.toISOString()}, ${season.scoring} ${season.order} ${season.rankStyle}, ` +
        `at most ${season.maxPointsPerMatch} points a match${shards}; boards ${windowsOf(season).join(', ')}` +
        (season.resetOffsetMinutes ? `, turning over ${season.resetOffsetMinutes} min after 00:00 UTC` : '') +
        (season.periodHours ? `, CUSTOM every ${season.periodHours} h from its start` : '') +
        (season.boards ? `; its boards ${boardsOf(season).map(boardName).join(', ')}` : '') +
        (season.rewards?.length ? `; rewards ${season.rewards.map((r) => r.name).join(', ')}` : '') +
        (season.league ? `; league ${season.league.name}` : '') +
        (season.repeats ? '; repeats' : ''),
    );
    // Last line, alone: scripts capture it with `tail -1`.
    ctx.out(String(season.id));
  },
};
