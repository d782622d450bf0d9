import type { KafkaMessage } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import type { Season } from '../../src/domain/season.js';
import { classifyChunk, dlqRecords, parseValue } from '../../src/kafka/classify-chunk.js';
import { thrown, utc } from '../domain/helpers.js';

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
const MATCH = '6f1c2a3b-4d5e-4f60-8a9b-0c1d2e3f4a5b';
const result = (change: object = {}) => ({
  v: 1,
  matchId: MATCH,
  seasonId: 7,
  endedAt: '2026-02-01T11:59:00.000Z',
  playerId: '42',
  points: 300,
  ...change,
});
let offset = 10;
const message = (value: string | null): KafkaMessage => ({
  key: Buffer.from('k'),
  value: value === null ? null : Buffer.from(value),
  offset: String(offset++),
  timestamp: '0',
  attributes: 0,
  size: 0,
});
/** Season lookups over a map, counting calls; PostgreSQL "down" rejects. */
function lookups(down = false) {
  const calls = { seasons: 0, blocked: 0 };
  return {
    calls,
    seasonById: async (id: number) => {
      calls.seasons++;
      if (down) throw new Error('connect ECONNREFUSED');
      return id === season.id ? season : undefined;
    },
    blockedIn: async () => {
      calls.blocked++;
      return new Set(['666']);
    },
  };
}

describe('classifying a chunk', () => {
  it.each<[string, string, string | undefined, string | null]>([
    ['a value that is not JSON', 'BAD_USER_INPUT', 'value', '{"v":1,'],
    ['an empty value', 'BAD_USER_INPUT', 'value', null],
    ['a message missing its player', 'BAD_USER_INPUT', 'playerId', JSON.stringify(result({ playerId: undefined }))],
    ['a result of an unknown season', 'SEASON_NOT_FOUND', 'seasonId', JSON.stringify(result({ seasonId: 8 }))],
    [
      'a result outside its season',
      'TIME_OUT_OF_RANGE',
      'endedAt',
      JSON.stringify(result({ endedAt: '2027-01-01T00:00:00.000Z' })),
    ],
    ['a result of a blocked player', 'PLAYER_BLOCKED', 'playerId', JSON.stringify(result({ playerId: '666' }))],
  ])('sends %s to the DLQ as %s', async (_, code, field, value) => {
    const { good, poison } = await classifyChunk([message(value)], 3, lookups());
    expect(good).toEqual([]);
    expect(poison.map((p) => ({ code: p.error.code, field: p.error.field }))).toEqual([{ code, field }]);
  });

  it('keeps the good results with their partition and offset, looking each season up once', async () => {
    const l = lookups();
    const chunk = [
      message(JSON.stringify(result())),
      message('nope'),
      message(JSON.stringify(result({ playerId: '43' }))),
    ];
    const { good, poison, seasons } = await classifyChunk(chunk, 3, l);
    expect(good).toEqual([
      {
        matchId: MATCH,
        playerId: '42',
        seasonId: 7,
        points: 300,
        endedAt: utc('2026-02-01T11:59:00.000Z'),
        partition: 3,
        offset: chunk[0]!.offset,
        metadata: null,
      },
      {
        matchId: MATCH,
        playerId: '43',
        seasonId: 7,
        points: 300,
        endedAt: utc('2026-02-01T11:59:00.000Z'),
        partition: 3,
        offset: chunk[2]!.offset,
        metadata: null,
      },
    ]);
    expect(poison.map((p) => p.message)).toEqual([chunk[1]]);
    expect(seasons.get(7)?.season).toBe(season);
    expect(l.calls).toEqual({ seasons: 1, blocked: 1 });
  });

  it('rejects the whole chunk when a season cannot be looked up (infrastructure: retried, never poison)', async () => {
    await expect(classifyChunk([message(JSON.stringify(result()))], 3, lookups(true))).rejects.toThrow('ECONNREFUSED');
  });

  it('reads a value as JSON or refuses it as bad input', () => {
    expect(parseValue(Buffer.from('{"a":1}'))).toEqual({ a: 1 });
    expect(thrown(() => parseValue(Buffer.from('')))).toEqual({ code: 'BAD_USER_INPUT', field: 'value' });
  });

  it('writes poison to the DLQ as it came, with why and where from in headers', async () => {
    const bad = message(JSON.stringify(result({ seasonId: 8 })));
    const { poison } = await classifyChunk([bad], 3, lookups());
    expect(dlqRecords(poison, { topic: 'results', partition: 3 })).toEqual([
      {
        key: bad.key,
        value: bad.value,
        headers: {
          'x-error-code': 'SEASON_NOT_FOUND',
          'x-error-field': 'seasonId',
          'x-error-message': poison[0]!.error.message,
          'x-source-topic': 'results',
          'x-source-partition': '3',
          'x-source-offset': bad.offset,
        },
      },
    ]);
  });
});
