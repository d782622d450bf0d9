import { describe, expect, it } from 'vitest';
import { normalizeDisplayName } from '../../src/domain/submission.js';
import { thrown } from './helpers.js';

describe('normalizeDisplayName', () => {
  it.each([
    ['plain ASCII', 'Ann', 'Ann'],
    ['a decomposed é becomes one code point (NFC)', 'Rene\u0301', 'René'],
    ['Hangul jamo compose (NFC)', '\u1112\u1161\u11AB', '한'],
    ['a family emoji (ZWJ between emoji)', '👨\u200D👩\u200D👧', '👨\u200D👩\u200D👧'],
    ['Persian with a ZWNJ between letters', 'می\u200Cخواهم', 'می\u200Cخواهم'],
    ['right-to-left text itself', 'שלום', 'שלום'],
    ['64 astral characters', '🎮'.repeat(64), '🎮'.repeat(64)],
    ['inner spaces', 'Ann Lee', 'Ann Lee'],
  ])('takes %s', (_name, input, stored) => {
    expect(normalizeDisplayName(input)).toBe(stored);
  });

  it.each([
    ['a right-to-left override', 'Ann\u202Egnp.exe'],
    ['a left-to-right override', '\u202DAnn'],
    ['a right-to-left isolate', 'Ann\u2067x\u2069'],
    ['a right-to-left mark', 'Ann\u200F'],
    ['an Arabic letter mark', 'Ann\u061C'],
    ['a zero-width space', 'An\u200Bn'],
    ['a zero-width joiner between ASCII letters', 'An\u200Dn'],
    ['a zero-width non-joiner at the end', 'Ann\u200C'],
    ['a word joiner', 'An\u2060n'],
    ['a byte-order mark', '\uFEFFAnn'],
    ['a soft hyphen', 'An\u00ADn'],
    ['a tag character', 'Ann\u{E0041}'],
    ['a Hangul filler', '\u3164'],
    ['a line separator', 'Ann\u2028Lee'],
    ['a newline', 'Ann\nLee'],
    ['a NUL', 'Ann\u0000'],
    ['a C1 control', 'Ann\u0085'],
    ['65 characters after NFC', 'e\u0301'.repeat(65)],
  ])('refuses %s (BAD_USER_INPUT on displayName)', (_name, input) => {
    expect(thrown(() => normalizeDisplayName(input))).toEqual({ code: 'BAD_USER_INPUT', field: 'displayName' });
  });
});
