// The board page's formatting (web/page.ts): scopes as picker values and labels, a rank's
// movement, metadata and numbers as cell text. Pure: no DOM, no state.
import type { ScopeInput } from '../src/client/ladder-client.js';

/** A scope as the picker's value: `r:BR`, `r:BR-SP`, `g:wolves`; '' for everyone. */
export function scopeKey(scope: ScopeInput | undefined): string {
  if (scope?.region) return `r:${scope.region}`;
  return scope?.group ? `g:${scope.group}` : '';
}

/** The scope of a picker value (scopeKey's inverse); undefined: everyone. */
export function scopeOf(key: string): ScopeInput | undefined {
  if (key.startsWith('r:')) return { region: key.slice(2) };
  return key.startsWith('g:') ? { group: key.slice(2) } : undefined;
}

/** "country BR", "region BR-SP", "clan wolves": a subdivision's code is its country's and a suffix. */
export function scopeLabel(key: string): string {
  const scope = scopeOf(key);
  if (scope?.region) return `${scope.region.includes('-') ? 'region' : 'country'} ${scope.region}`;
  return scope?.group ? `clan ${scope.group}` : 'everyone';
}

/** Movement from `before` (the previous rank, undefined when new) to `rank`: text and class. */
export function movement(rank: number, before: number | undefined, isNew: boolean): { text: string; cls: string } {
  if (before === undefined) return isNew ? { text: 'new', cls: 'new' } : { text: '', cls: '' };
  if (before > rank) return { text: `▲${before - rank}`, cls: 'up' };
  if (before < rank) return { text: `▼${rank - before}`, cls: 'down' };
  return { text: '', cls: '' };
}

/** A JSON value in a cell: a string as it is, anything else as JSON. */
export const valueText = (v: unknown) => (typeof v === 'object' ? JSON.stringify(v) : String(v));
/** At most 40 characters: the whole JSON goes in the tooltip. */
export const clip = (text: string) => (text.length > 40 ? `${text.slice(0, 39)}…` : text);

/** An entry's metadata in a cell: its top-level values (`Falcon · red`), the whole JSON as the tooltip. */
export function metadataText(metadata: Record<string, unknown> | null | undefined): string {
  return metadata ? clip(Object.values(metadata).map(valueText).join(' · ')) : '';
}

export const count = (n: number) => n.toLocaleString('en-US');
/** "0.37", "4.2", "100": two significant digits, enough to tell a top 0.4% from a top 0.5%. */
export const topPercent = (p: number) => String(Number(p.toPrecision(2)));
