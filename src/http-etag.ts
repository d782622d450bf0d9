// Conditional GETs (RFC 9110 §13.1.2): does an If-None-Match header match a representation's
// entity tag? Used by every path that answers 304 (the read fast path, the board page, GraphiQL).

/** The entity tags of an If-None-Match list, in order, each as sent (`W/"…"` or `"…"`). */
function entityTags(header: string): string[] {
  const tags: string[] = [];
  let i = 0;
  while (i < header.length) {
    while (header[i] === ' ' || header[i] === '\t' || header[i] === ',') i++;
    if (i >= header.length) break;
    const start = i;
    if (header.startsWith('W/', i)) i += 2;
    if (header[i] !== '"') return tags; // not an entity tag: the rest of the list is ignored
    const close = header.indexOf('"', i + 1);
    if (close < 0) return tags;
    tags.push(header.slice(start, close + 1));
    i = close + 1;
  }
  return tags;
}

/** The opaque tag a weak comparison compares: the tag without its weakness indicator. */
const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);

/**
 * If-None-Match by weak comparison, as GET and HEAD use it: `*` matches any current
 * representation; otherwise one listed tag must equal `etag` once both drop `W/` (a proxy that
 * compresses, such as nginx, weakens the tag it passes on).
 */
export function ifNoneMatchHits(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.trim() === '*') return true;
  const mine = opaque(etag);
  return entityTags(value).some((t) => opaque(t) === mine);
}
