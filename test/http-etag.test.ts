// If-None-Match per RFC 9110 §13.1.2 (src/http-etag.ts): weak comparison, lists, `*`.
import { describe, expect, it } from 'vitest';
import { ifNoneMatchHits } from '../src/http-etag.js';

const etag = '"abc"';

describe('ifNoneMatchHits', () => {
  it.each([
    ['no header', undefined, false],
    ['the same strong tag', '"abc"', true],
    ['the tag weakened by a compressing proxy', 'W/"abc"', true],
    ['another tag', '"abd"', false],
    ['a list holding it', '"x", W/"abc", "y"', true],
    ['a list without it', '"x", "y"', false],
    ['no spaces in the list', '"x","abc"', true],
    ['a comma inside another tag (etagc allows it)', '"a,b", "abc"', true],
    ['a comma inside a tag does not split it', '"abc,x"', false],
    ['*: any current representation', '*', true],
    ['* with spaces', ' * ', true],
    ['unquoted: not an entity tag', 'abc', false],
    ['garbage after a match still matches', '"abc", junk', true],
    ['a tag after garbage is not read', 'junk, "abc"', false],
    ['an unterminated tag', '"abc', false],
    ['lowercase w/ is not a weakness indicator', 'w/"abc"', false],
    ['repeated headers, joined', ['"x"', 'W/"abc"'], true],
  ])('%s', (_name, header, hit) => {
    expect(ifNoneMatchHits(header, etag)).toBe(hit);
  });

  it('compares a weak validator of its own weakly too', () => {
    expect(ifNoneMatchHits('"abc"', 'W/"abc"')).toBe(true);
  });
});
