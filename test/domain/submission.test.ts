import { describe, expect, it } from 'vitest';
import type { Season } from '../../src/domain/season.js';
import { parseMatchId, parseMatchResultMessage, parsePlayerId } from '../../src/domain/result-message.js';
import {
  checkIngestable,
  checkResultAgainstSeason,
  claimText,
  validateSubmission,
  type SubmissionInput,
} from '../../src/domain/submission.js';
import { thrown, utc } from './helpers.js';

const season: Season = {
  id: 7,
  name: 'Winter Cup',
  startsAt: utc('2026-01-01T00:00:00.000Z'),
  endsAt: utc('2026-04-01T00:00:00.000Z'),
  status: 'ACTIVE',
  scoring: 'BEST',
  order: 'DESC',
  rankStyle: 'ORDINAL',
  maxPointsPerMatch: 1000,
  split: { pointsBits: 21, timeBits: 32, timeUnitSeconds: 1 },
};
const now = utc('2026-02-01T12:00:00.000Z');
const SKEW = 5_000;
const MATCH = '6f1c2a3b-4d5e-4f60-8a9b-0c1d2e3f4a5b';
const input: SubmissionInput = {
  matchId: MATCH,
  seasonIds: [7],
  endedAt: utc('2026-02-01T11:59:00.000Z'),
  results: [
    { playerId: '42', points: 300, displayName: 'Ada' },
    { playerId: '9223372036854775807', points: 0 },
  ],
};
const withResult = (change: object) => ({ ...input, results: [{ playerId: '42', points: 1, ...change }] });
const ms = (d: Date, delta: number) => new Date(d.getTime() + delta);

describe('validateSubmission', () => {
  it.each<[string, Partial<SubmissionInput>, Season | undefined, string, string]>([
    ['an unknown season', {}, undefined, 'SEASON_NOT_FOUND', 'seasonId'],
    ['a season closed by an admin', {}, { ...season, status: 'CLOSED' }, 'SEASON_CLOSED', 'seasonId'],
    ['a season past its end', {}, { ...season, endsAt: now }, 'SEASON_CLOSED', 'seasonId'],
    ['a season not started yet', {}, { ...season, startsAt: ms(now, 1) }, 'SEASON_NOT_STARTED', 'seasonId'],
    ['a match id that is no UUID', { matchId: 'match-1' }, season, 'BAD_USER_INPUT', 'matchId'],
    ['a match id in braces', { matchId: `{${MATCH}}` }, season, 'BAD_USER_INPUT', 'matchId'],
    ['a match id without dashes', { matchId: MATCH.replaceAll('-', '') }, season, 'BAD_USER_INPUT', 'matchId'],
    ['a match id with a non-hex digit', { matchId: MATCH.replace('6f', '6g') }, season, 'BAD_USER_INPUT', 'matchId'],
    ['no results', { results: [] }, season, 'BAD_USER_INPUT', 'results'],
    [
      '101 results',
      { results: Array.from({ length: 101 }, (_, i) => ({ playerId: String(i + 1), points: 1 })) },
      season,
      'BAD_USER_INPUT',
      'results',
    ],
    [
      'one player twice',
      {
        results: [
          { playerId: '42', points: 1 },
          { playerId: '42', points: 2 },
        ],
      },
      season,
      'BAD_USER_INPUT',
      'results',
    ],
    ['a player id with leading zeros', withResult({ playerId: '007' }), season, 'BAD_USER_INPUT', 'playerId'],
    ['a player id with a plus sign', withResult({ playerId: '+7' }), season, 'BAD_USER_INPUT', 'playerId'],
    ['a negative player id', withResult({ playerId: '-7' }), season, 'BAD_USER_INPUT', 'playerId'],
    ['a player id with a leading space', withResult({ playerId: ' 7' }), season, 'BAD_USER_INPUT', 'playerId'],
    ['a player id with a trailing newline', withResult({ playerId: '7\n' }), season, 'BAD_USER_INPUT', 'playerId'],
    ['a player id with a NUL byte', withResult({ playerId: '7\u0000' }), season, 'BAD_USER_INPUT', 'playerId'],
    ['player id 0', withResult({ playerId: '0' }), season, 'BAD_USER_INPUT', 'playerId'],
    ['a player id past int64', withResult({ playerId: '9223372036854775808' }), season, 'BAD_USER_INPUT', 'playerId'],
    ['a 20-digit player id', withResult({ playerId: '10000000000000000000' }), season, 'BAD_USER_INPUT', 'playerId'],
    ['a player id in exponent form', withResult({ playerId: '1e3' }), season, 'BAD_USER_INPUT', 'playerId'],
    ['an empty player id', withResult({ playerId: '' }), season, 'BAD_USER_INPUT', 'playerId'],
    ['a player id in non-ASCII digits', withResult({ playerId: '٤٢' }), season, 'BAD_USER_INPUT', 'playerId'],
    ['negative points', withResult({ points: -1 }), season, 'POINTS_OUT_OF_RANGE', 'points'],
    ['points over maxPointsPerMatch', withResult({ points: 1001 }), season, 'POINTS_OUT_OF_RANGE', 'points'],
    ['fractional points', withResult({ points: 1.5 }), season, 'POINTS_OUT_OF_RANGE', 'points'],
    ['NaN points', withResult({ points: Number.NaN }), season, 'POINTS_OUT_OF_RANGE', 'points'],
    ['an end before the season start', { endedAt: ms(season.startsAt, -1) }, season, 'TIME_OUT_OF_RANGE', 'endedAt'],
    [
      'an end at the season end',
      { endedAt: ms(now, 1) },
      { ...season, endsAt: ms(now, 1) },
      'TIME_OUT_OF_RANGE',
      'endedAt',
    ],
    [
      'an end further in the future than the skew',
      { endedAt: ms(now, SKEW + 1) },
      season,
      'TIME_OUT_OF_RANGE',
      'endedAt',
    ],
    ['an invalid end', { endedAt: new Date(Number.NaN) }, season, 'BAD_USER_INPUT', 'endedAt'],
    [
      'a 65-character display name',
      withResult({ displayName: 'x'.repeat(65) }),
      season,
      'BAD_USER_INPUT',
      'displayName',
    ],
    [
      'a display name with a newline',
      withResult({ displayName: 'Ada\nLovelace' }),
      season,
      'BAD_USER_INPUT',
      'displayName',
    ],
    ['a display name with a bell', withResult({ displayName: 'Ada\u0007' }), season, 'BAD_USER_INPUT', 'displayName'],
    ['a display name with DEL', withResult({ displayName: 'Ada\u007f' }), season, 'BAD_USER_INPUT', 'displayName'],
    [
      'a display name with a C1 control',
      withResult({ displayName: 'Ada\u0085' }),
      season,
      'BAD_USER_INPUT',
      'displayName',
    ],
  ])('rejects %s', (_name, change, s, code, field) => {
    expect(thrown(() => validateSubmission({ ...input, ...change }, [s], now, SKEW))).toEqual({ code, field });
  });

  it('refuses a season other than the one the input names, a caller bug rather than bad input', () => {
    expect(thrown(() => validateSubmission({ ...input, seasonIds: [8] }, [season], now, SKEW))).toBe('Error');
  });

  it('returns one canonical message per player', () => {
    expect(validateSubmission({ ...input, matchId: MATCH.toUpperCase() }, [season], now, SKEW)).toEqual([
      { v: 1, matchId: MATCH, seasonId: 7, endedAt: '2026-02-01T11:59:00.000Z', playerId: '42', points: 300 },
      {
        v: 1,
        matchId: MATCH,
        seasonId: 7,
        endedAt: '2026-02-01T11:59:00.000Z',
        playerId: '9223372036854775807',
        points: 0,
      },
    ]);
  });

  it.each<[string, Partial<SubmissionInput>]>([
    ['an end exactly at the skew limit', { endedAt: ms(now, SKEW) }],
    ['an end exactly at the season start', { endedAt: season.startsAt }],
    ['100 results', { results: Array.from({ length: 100 }, (_, i) => ({ playerId: String(i + 1), points: i })) }],
    [
      'points of 0 and of maxPointsPerMatch',
      {
        results: [
          { playerId: '1', points: 0 },
          { playerId: '2', points: 1000 },
        ],
      },
    ],
    ['a 64-character display name of astral characters', withResult({ displayName: '🎮'.repeat(64) })],
    ['a null display name', withResult({ displayName: null })],
    ['an empty display name', withResult({ displayName: '' })],
  ])('accepts %s', (_name, change) => {
    const messages = validateSubmission({ ...input, ...change }, [season], now, SKEW);
    expect(messages).toHaveLength((change.results ?? input.results).length);
  });
});

describe('a match that counts in several seasons', () => {
  const allTime: Season = {
    ...season,
    id: 3,
    scoring: 'SUM',
    maxPointsPerMatch: 500,
    startsAt: utc('2025-01-01T00:00:00Z'),
  };
  const event: Season = {
    ...season,
    id: 11,
    startsAt: utc('2026-02-01T00:00:00Z'),
    endsAt: utc('2026-02-03T00:00:00Z'),
  };
  const several = { ...input, seasonIds: [11, 3, 7], results: [{ playerId: '42', points: 300 }] };

  it('returns one message per season and player, seasons ascending whatever order they came in', () => {
    const messages = validateSubmission(several, [event, allTime, season], now, SKEW);
    expect(messages.map((m) => [m.seasonId, m.playerId, m.points])).toEqual([
      [3, '42', 300],
      [7, '42', 300],
      [11, '42', 300],
    ]);
  });

  it.each<[string, Partial<SubmissionInput>, (Season | undefined)[], string, string]>([
    ['no season', { seasonIds: [] }, [], 'BAD_USER_INPUT', 'seasonIds'],
    ['nine seasons', { seasonIds: [1, 2, 3, 4, 5, 6, 7, 8, 9] }, [], 'BAD_USER_INPUT', 'seasonIds'],
    ['a season twice', { seasonIds: [7, 7] }, [season, season], 'BAD_USER_INPUT', 'seasonIds'],
    ['a season id of 0', { seasonIds: [0, 7] }, [undefined, season], 'BAD_USER_INPUT', 'seasonIds'],
    ['one unknown season among them', { seasonIds: [7, 99] }, [season, undefined], 'SEASON_NOT_FOUND', 'seasonId'],
    [
      'one season that does not take the endedAt',
      { seasonIds: [7, 11], endedAt: utc('2026-01-20T00:00:00Z') },
      [season, event],
      'TIME_OUT_OF_RANGE',
      'endedAt',
    ],
    [
      "points within one season's range but not another's",
      { seasonIds: [7, 3], results: [{ playerId: '42', points: 501 }] },
      [season, allTime],
      'POINTS_OUT_OF_RANGE',
      'points',
    ],
  ])('refuses the whole match for %s', (_name, change, seasons, code, field) => {
    expect(thrown(() => validateSubmission({ ...several, ...change }, seasons, now, SKEW))).toEqual({ code, field });
  });
});

describe('claimText', () => {
  const messages = (seasonIds: number[], points = 300) =>
    validateSubmission(
      {
        ...input,
        seasonIds,
        results: [
          { playerId: '9', points },
          { playerId: '10', points: 1 },
        ],
      },
      seasonIds.map((id) => ({ ...season, id })),
      now,
      SKEW,
    );

  it.each<[string, number[], string]>([
    ['one season: the text claims had before matches could count in several', [7], '7|1769947140000|9:300,10:1'],
    ['several seasons, in any order: the same text', [12, 7], '7,12|1769947140000|9:300,10:1'],
    ['several seasons listed the other way', [7, 12], '7,12|1769947140000|9:300,10:1'],
  ])('%s', (_name, seasonIds, text) => {
    expect(claimText(messages(seasonIds))).toBe(text);
  });

  it('adds metadata as a JSON string after the points: a comma or colon in it cannot pass for another player', () => {
    const [first, second] = messages([7]);
    expect(claimText([{ ...first!, metadata: '{"a":"1,10:1"}' }])).toBe(
      `7|1769947140000|9:300#"{\\"a\\":\\"1,10:1\\"}"`,
    );
    expect(claimText([{ ...first!, metadata: '{"a":1}' }, second!])).not.toBe(claimText([first!, second!]));
  });

  it('differs when the seasons, or the points, differ', () => {
    const one = claimText(messages([7, 12]));
    expect(claimText(messages([7]))).not.toBe(one);
    expect(claimText(messages([7, 13]))).not.toBe(one);
    expect(claimText(messages([7, 12], 301))).not.toBe(one);
  });
});

describe('parsePlayerId and parseMatchId', () => {
  it.each([
    ['1', '1'],
    ['42', '42'],
    ['9007199254740993', '9007199254740993'],
    ['9223372036854775807', '9223372036854775807'],
  ])('keeps the player id %s as %s', (s, expected) => {
    expect(parsePlayerId(s)).toBe(expected);
  });

  it.each([
    [MATCH, MATCH],
    [MATCH.toUpperCase(), MATCH],
    ['00000000-0000-0000-0000-000000000000', '00000000-0000-0000-0000-000000000000'],
  ])('canonicalises the match id %s', (s, expected) => {
    expect(parseMatchId(s)).toBe(expected);
  });

  it.each([`${MATCH}\n`, ` ${MATCH}`, `urn:uuid:${MATCH}`, ''])('rejects the match id %j', (s) => {
    expect(thrown(() => parseMatchId(s))).toEqual({ code: 'BAD_USER_INPUT', field: 'matchId' });
  });
});

const message = { v: 1, matchId: MATCH, seasonId: 7, endedAt: '2026-02-01T11:59:00.000Z', playerId: '42', points: 300 };

describe('parseMatchResultMessage', () => {
  it('accepts a well-formed message as is', () => {
    expect(parseMatchResultMessage(structuredClone(message))).toEqual(message);
  });

  it('accepts metadata of up to 1,024 bytes of a JSON object, as its text', () => {
    const metadata = JSON.stringify({ k: 'x'.repeat(1_016) });
    expect(parseMatchResultMessage({ ...message, metadata })).toEqual({ ...message, metadata });
  });

  it('accepts the largest player id', () => {
    expect(parseMatchResultMessage({ ...message, playerId: '9223372036854775807' })).toEqual({
      ...message,
      playerId: '9223372036854775807',
    });
  });

  it('canonicalises the time and the match id', () => {
    expect(
      parseMatchResultMessage({ ...message, endedAt: '2026-02-01T11:59:00Z', matchId: MATCH.toUpperCase() }),
    ).toEqual(message);
  });

  it.each<[string, unknown, string | undefined]>([
    ['null', null, undefined],
    ['an array', [message], undefined],
    ['a string', JSON.stringify(message), undefined],
    ['version 2', { ...message, v: 2 }, 'v'],
    ['no version', { ...message, v: undefined }, 'v'],
    ['an unknown key', { ...message, bonus: 1 }, 'bonus'],
    ['no match id', { ...message, matchId: undefined }, 'matchId'],
    ['a bad match id', { ...message, matchId: 'abc' }, 'matchId'],
    ['a string season id', { ...message, seasonId: '7' }, 'seasonId'],
    ['a fractional season id', { ...message, seasonId: 7.5 }, 'seasonId'],
    ['season id 0', { ...message, seasonId: 0 }, 'seasonId'],
    ['a time with an offset', { ...message, endedAt: '2026-02-01T12:59:00+01:00' }, 'endedAt'],
    ['a time without a zone', { ...message, endedAt: '2026-02-01T11:59:00' }, 'endedAt'],
    ['a time that does not exist', { ...message, endedAt: '2026-02-30T00:00:00Z' }, 'endedAt'],
    ['epoch milliseconds as the time', { ...message, endedAt: 1_769_947_140_000 }, 'endedAt'],
    ['a numeric player id', { ...message, playerId: 42 }, 'playerId'],
    ['a non-canonical player id', { ...message, playerId: '042' }, 'playerId'],
    ['string points', { ...message, points: '300' }, 'points'],
    ['fractional points', { ...message, points: 1.5 }, 'points'],
    ['points past 2^53', { ...message, points: 2 ** 53 }, 'points'],
    [
      "a time that does not exist, in the API's own format",
      { ...message, endedAt: '2026-02-30T00:00:00.000Z' },
      'endedAt',
    ],
    ['a player id past 2^63 - 1', { ...message, playerId: '9223372036854775808' }, 'playerId'],
    ['a season id past the GraphQL Int range', { ...message, seasonId: 2 ** 31 }, 'seasonId'],
    ['metadata as an object, not its text', { ...message, metadata: { car: 'red' } }, 'metadata'],
    ['metadata that is not JSON', { ...message, metadata: '{car' }, 'metadata'],
    ['metadata that is a JSON array', { ...message, metadata: '[1]' }, 'metadata'],
    ['metadata of 1,025 bytes', { ...message, metadata: JSON.stringify({ k: 'x'.repeat(1_017) }) }, 'metadata'],
  ])('rejects %s', (_name, json, field) => {
    expect(thrown(() => parseMatchResultMessage(json))).toEqual({ code: 'BAD_USER_INPUT', field });
  });
});

describe('checkResultAgainstSeason', () => {
  it.each<[string, number, Date, Date | undefined, unknown]>([
    ['a result inside the season', 5, now, now, 'no error'],
    ['a future result when no clock is given (the consumer)', 5, ms(now, 86_400_000), undefined, 'no error'],
    ['a future result at the API', 5, ms(now, 86_400_000), now, { code: 'TIME_OUT_OF_RANGE', field: 'endedAt' }],
    ['a result 1 ms before the end', 5, ms(season.endsAt, -1), undefined, 'no error'],
    ['a result at the end', 5, season.endsAt, undefined, { code: 'TIME_OUT_OF_RANGE', field: 'endedAt' }],
    ['too many points', 1001, now, undefined, { code: 'POINTS_OUT_OF_RANGE', field: 'points' }],
  ])('judges %s', (_name, points, endedAt, clock, expected) => {
    expect(thrown(() => checkResultAgainstSeason({ points, endedAt }, season, clock, SKEW))).toEqual(expected);
  });
});

describe('checkIngestable', () => {
  const message = (change: object = {}) => ({
    v: 1 as const,
    matchId: MATCH,
    seasonId: 7,
    playerId: '42',
    points: 5,
    endedAt: '2026-02-01T11:59:00.000Z',
    ...change,
  });
  const blocked = new Set(['666']);
  it.each<[string, object, Season, unknown]>([
    ['a result of an active season', {}, season, 'no error'],
    ['a result of a closed season not yet final', {}, { ...season, status: 'CLOSED' }, 'no error'],
    [
      'a result hours in the future (a replay of an old one is valid too)',
      { endedAt: '2026-03-01T00:00:00.000Z' },
      season,
      'no error',
    ],
    [
      'a result of a final season',
      {},
      { ...season, status: 'CLOSED', finalizedAt: now },
      { code: 'SEASON_CLOSED', field: 'seasonId' },
    ],
    [
      'a result outside the season',
      { endedAt: '2026-04-01T00:00:00.000Z' },
      season,
      { code: 'TIME_OUT_OF_RANGE', field: 'endedAt' },
    ],
    ['too many points', { points: 1001 }, season, { code: 'POINTS_OUT_OF_RANGE', field: 'points' }],
    ['a blocked player', { playerId: '666' }, season, { code: 'PLAYER_BLOCKED', field: 'playerId' }],
  ])('judges %s', (_name, change, s, expected) => {
    expect(thrown(() => checkIngestable(message(change), s, blocked))).toEqual(expected);
  });

  it('returns the endedAt as a Date', () => {
    expect(checkIngestable(message(), season, blocked)).toEqual(utc('2026-02-01T11:59:00.000Z'));
  });
});

describe('validateSubmission on a season of several boards', () => {
  // Season 7's own board ranks score; 8 ranks kills (SUM), 9 lap_time (ASC), 10 wins then kills.
  const board = (id: number, more: Partial<Season>): Season => ({ ...season, id, parentId: 7, ...more });
  const boards: Season = {
    ...season,
    board: 'score',
    stat: 'score',
    boards: [
      board(8, { board: 'kills', stat: 'kills', scoring: 'SUM', maxPointsPerMatch: 100 }),
      board(9, { board: 'lap_time', stat: 'lap_time', order: 'ASC', maxPointsPerMatch: 600_000 }),
      board(10, {
        board: 'royale',
        keys: [
          { stat: 'wins', order: 'DESC', max: 1 },
          { stat: 'kills', order: 'DESC', max: 100 },
        ],
        maxPointsPerMatch: 255,
      }),
    ],
  };
  const stats = (s: Record<string, number>) => Object.entries(s).map(([name, value]) => ({ name, value }));
  const submit = (results: SubmissionInput['results']) =>
    validateSubmission({ ...input, results }, [boards], now, SKEW).map((m) => [m.seasonId, m.playerId, m.points]);

  it.each<[string, SubmissionInput['results'], Array<[number, string, number]>]>([
    [
      'every stat on every board that ranks it; the multi-key board packs them',
      [{ playerId: '1', stats: stats({ score: 50, kills: 3, wins: 1 }) }],
      [
        [7, '1', 50],
        [8, '1', 3],
        [10, '1', (1 << 7) + 3],
      ],
    ],
    [
      'a board whose stats a result lacks does not take it',
      [
        { playerId: '1', stats: stats({ lap_time: 61_000 }) },
        { playerId: '2', stats: stats({ score: 1, kills: 0 }) },
      ],
      [
        [7, '2', 1],
        [8, '2', 0],
        [9, '1', 61_000],
      ],
    ],
  ])('%s', (_name, results, messages) => {
    expect(submit(results)).toEqual(messages);
  });

  it.each<[string, SubmissionInput['results'], string]>([
    ['a stat over its board’s range', [{ playerId: '1', stats: stats({ kills: 101 }) }], 'stats'],
    ['a key over its range', [{ playerId: '1', stats: stats({ wins: 2, kills: 1 }) }], 'stats'],
    ['a stat no board ranks', [{ playerId: '1', stats: stats({ score: 1, deaths: 2 }) }], 'stats'],
    [
      'points, which no board of this season ranks',
      [{ playerId: '1', points: 5, stats: stats({ score: 1 }) }],
      'stats',
    ],
    ['a stat given twice', [{ playerId: '1', stats: [...stats({ score: 1 }), ...stats({ score: 2 })] }], 'stats'],
    ['a stat name with a capital', [{ playerId: '1', stats: stats({ Score: 1 }) }], 'stats'],
    ['a fractional value', [{ playerId: '1', stats: stats({ score: 1.5 }) }], 'stats'],
    ['neither points nor stats', [{ playerId: '1' }], 'stats'],
    [
      'a player who counts on no board while another does',
      [
        { playerId: '1', stats: stats({ score: 1 }) },
        { playerId: '2', stats: stats({ wins: 1 }) },
      ],
      'stats',
    ],
  ])('refuses %s: BAD_USER_INPUT, nothing sent', (_name, results, field) => {
    expect(thrown(() => submit(results))).toEqual({ code: 'BAD_USER_INPUT', field });
  });

  it('claims a different text when any board’s value differs, and the old text for one board per season', () => {
    const claim = (kills: number) =>
      claimText(
        validateSubmission(
          { ...input, results: [{ playerId: '1', stats: stats({ score: 5, kills }) }] },
          [boards],
          now,
          SKEW,
        ),
      );
    expect(claim(3)).toBe('7,8|1769947140000|1:5|8:1:3');
    expect(claim(4)).not.toBe(claim(3));
    // Boards whose values equal the first board's add nothing: the multi-season text stays as it was.
    expect(
      claimText(
        validateSubmission(
          { ...input, results: [{ playerId: '1', stats: stats({ score: 5, kills: 5 }) }] },
          [boards],
          now,
          SKEW,
        ),
      ),
    ).toBe('7,8|1769947140000|1:5');
  });
});
