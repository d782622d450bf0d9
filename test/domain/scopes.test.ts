import type { KafkaMessage } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import {
  parsePlayerScopes,
  parseScopesMessage,
  requestedScope,
  scopesMessage,
  scopesOf,
  scopeView,
} from '../../src/domain/scopes.js';
import { phasesOf } from '../../src/kafka/classify-chunk.js';
import { thrown } from './helpers.js';

describe('parsePlayerScopes', () => {
  it.each<[string, Parameters<typeof parsePlayerScopes>[0], unknown]>([
    ['a country', { region: 'BR' }, { region: 'BR', groups: [] }],
    ['lower case is upper-cased', { region: 'br-sp' }, { region: 'BR-SP', groups: [] }],
    ['a numeric subdivision', { region: 'FR-75' }, { region: 'FR-75', groups: [] }],
    ['none', {}, { region: null, groups: [] }],
    [
      'groups sorted, once each',
      { groups: ['wolves', 'bears', 'wolves'] },
      { region: null, groups: ['bears', 'wolves'] },
    ],
    ['eight groups', { groups: ['1', '2', '3', '4', '5', '6', '7', '8'] }, 'no error'],
    ['a country name', { region: 'Brazil' }, { code: 'BAD_USER_INPUT', field: 'region' }],
    ['three letters', { region: 'BRA' }, { code: 'BAD_USER_INPUT', field: 'region' }],
    ['a long subdivision', { region: 'BR-SPPP' }, { code: 'BAD_USER_INPUT', field: 'region' }],
    ['an empty region', { region: '' }, { code: 'BAD_USER_INPUT', field: 'region' }],
    ['a group with a colon', { groups: ['a:b'] }, { code: 'BAD_USER_INPUT', field: 'group' }],
    ['a group with a brace', { groups: ['{x}'] }, { code: 'BAD_USER_INPUT', field: 'group' }],
    ['an empty group', { groups: [''] }, { code: 'BAD_USER_INPUT', field: 'group' }],
    ['a 65-character group', { groups: ['x'.repeat(65)] }, { code: 'BAD_USER_INPUT', field: 'group' }],
    [
      'nine groups',
      { groups: ['1', '2', '3', '4', '5', '6', '7', '8', '9'] },
      { code: 'BAD_USER_INPUT', field: 'groups' },
    ],
  ])('%s', (_name, input, expected) => {
    const refused = typeof expected === 'object' && expected !== null && 'code' in expected;
    if (refused || expected === 'no error') expect(thrown(() => parsePlayerScopes(input))).toEqual(expected);
    else expect(parsePlayerScopes(input)).toEqual(expected);
  });
});

describe('scopesOf', () => {
  it.each<[string, Parameters<typeof scopesOf>[0], string[]]>([
    ['nothing', { region: null, groups: [] }, []],
    ['a country', { region: 'US', groups: [] }, ['r:US']],
    ['a subdivision ranks in its country too', { region: 'BR-SP', groups: [] }, ['r:BR', 'r:BR-SP']],
    ['groups', { region: 'DE', groups: ['a', 'b'] }, ['r:DE', 'g:a', 'g:b']],
  ])('%s', (_name, scopes, expected) => {
    expect(scopesOf(scopes)).toEqual(expected);
  });
});

describe('requestedScope', () => {
  it.each<[string, Parameters<typeof requestedScope>[0], unknown]>([
    ['none', null, null],
    ['a region', { region: 'br' }, 'r:BR'],
    ['a group', { group: 'owls' }, 'g:owls'],
    ['both', { region: 'BR', group: 'owls' }, { code: 'BAD_USER_INPUT', field: 'scope' }],
    ['neither', {}, { code: 'BAD_USER_INPUT', field: 'scope' }],
    ['a bad region', { region: 'Brazil' }, { code: 'BAD_USER_INPUT', field: 'region' }],
  ])('%s', (_name, input, expected) => {
    const error = thrown(() => requestedScope(input));
    if (typeof expected === 'object' && expected !== null) expect(error).toEqual(expected);
    else expect(requestedScope(input)).toBe(expected);
  });

  it('reads back as the API shows it', () => {
    expect(scopeView('r:BR-SP')).toEqual({ region: 'BR-SP', group: null });
    expect(scopeView('g:owls')).toEqual({ region: null, group: 'owls' });
  });
});

describe('scopes messages', () => {
  it('round-trip, and anything else is refused', () => {
    const m = scopesMessage('42', { region: 'BR', groups: ['a'] });
    expect(parseScopesMessage(JSON.parse(JSON.stringify(m)))).toEqual({
      playerId: '42',
      scopes: { region: 'BR', groups: ['a'] },
    });
    expect(thrown(() => parseScopesMessage({ ...m, playerId: '-1' }))).toEqual({
      code: 'BAD_USER_INPUT',
      field: 'playerId',
    });
    expect(thrown(() => parseScopesMessage({ v: 1, playerId: '42' }))).toMatchObject({ code: 'BAD_USER_INPUT' });
  });
});

describe('phasesOf', () => {
  const msg = (player: string, kind: 'r' | 's', n: number) =>
    ({ key: Buffer.from(player), value: Buffer.from(`${kind}${n}`), offset: String(n) }) as unknown as KafkaMessage;
  const isScopes = (m: KafkaMessage) => m.value!.toString().startsWith('s');
  const shape = (phases: ReturnType<typeof phasesOf>) =>
    phases.map((p) => [p.results.map((m) => m.value!.toString()), p.scopes.map((m) => m.value!.toString())]);

  it.each<[string, Array<[string, 'r' | 's']>, Array<[string[], string[]]>]>([
    [
      'results only: one phase',
      [
        ['a', 'r'],
        ['b', 'r'],
      ],
      [[['r0', 'r1'], []]],
    ],
    [
      'a change before its results: two phases',
      [
        ['a', 's'],
        ['a', 'r'],
        ['b', 's'],
        ['b', 'r'],
      ],
      [
        [[], ['s0', 's2']],
        [['r1', 'r3'], []],
      ],
    ],
    [
      'results before and after a change keep their side',
      [
        ['a', 'r'],
        ['a', 's'],
        ['a', 'r'],
        ['b', 'r'],
        ['a', 's'],
        ['b', 'r'],
      ],
      [
        [['r0', 'r3', 'r5'], ['s1']],
        [['r2'], ['s4']],
      ],
    ],
  ])('%s', (_name, messages, expected) => {
    expect(
      shape(
        phasesOf(
          messages.map(([p, k], i) => msg(p, k, i)),
          isScopes,
        ),
      ),
    ).toEqual(expected);
  });
});
