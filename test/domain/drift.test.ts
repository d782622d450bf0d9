import { describe, expect, it } from 'vitest';
import { addTally, classify, countDrift, emptyTally, isClean, isPlayerId } from '../../src/domain/drift.js';

describe('classify', () => {
  it.each<[string | null, string | null, string | undefined]>([
    [null, null, undefined],
    ['42', '42', undefined],
    ['42', null, 'missing'],
    [null, '42', 'extra'],
    ['42', '43', 'different'],
    ['42', '41', 'different'],
    // Redis prints an integer-valued double as an integer; anything else was written by hand.
    ['42', '42.5', 'different'],
  ])('expected %s, actual %s: %s', (expected, actual, kind) => {
    expect(classify(expected, actual)).toBe(kind);
  });
});

describe('tallies', () => {
  it('count every drifted player but keep only the first ids as a sample', () => {
    const t = emptyTally();
    for (const id of ['1', '2', '3', '4']) countDrift(t, 'missing', id, 3);
    countDrift(t, 'extra', '9', 3);
    expect(t).toMatchObject({
      missing: 4,
      extra: 1,
      different: 0,
      samples: { missing: ['1', '2', '3'], extra: ['9'], different: [] },
    });
    expect(isClean(t)).toBe(false);
  });

  it('add up per board into a total whose samples stay capped', () => {
    const total = emptyTally();
    const a = {
      ...emptyTally(),
      pgCount: 10,
      redisCount: 9,
      missing: 2,
      repaired: 2,
      samples: { missing: ['1', '2'], extra: [], different: [] },
    };
    const b = {
      ...emptyTally(),
      pgCount: 5,
      redisCount: 7,
      extra: 2,
      missing: 1,
      samples: { missing: ['3'], extra: ['8', '9'], different: [] },
    };
    addTally(total, a, 2);
    addTally(total, b, 2);
    expect(total).toEqual({
      pgCount: 15,
      redisCount: 16,
      missing: 3,
      extra: 2,
      different: 0,
      repaired: 2,
      unencodable: 0,
      samples: { missing: ['1', '2'], extra: ['8', '9'], different: [] },
    });
  });

  it('call a tally without missing, extra or different entries clean', () => {
    expect(isClean({ ...emptyTally(), pgCount: 100, redisCount: 100, unencodable: 1 })).toBe(true);
  });
});

describe('isPlayerId', () => {
  it.each([
    ['1', true],
    ['9223372036854775807', true],
    ['0', false],
    ['007', false],
    ['-1', false],
    ['9223372036854775808', false],
    ['1.0', false],
    ['abc', false],
    ['', false],
  ])('%s: %s', (member, ok) => {
    expect(isPlayerId(member)).toBe(ok);
  });
});
