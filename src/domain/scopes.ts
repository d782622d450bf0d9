import { badInput } from './errors.js';
import { parsePlayerId } from './result-message.js';

// Scopes (docs/design.md#scopes): where a player ranks besides the whole board. The trusted
// server sets a player's region and groups; every board then also answers within each of them.
// A scope travels as one string: `r:BR` (a country), `r:BR-SP` (a subdivision), `g:<group>`.

/** A player's scopes as the trusted server sets them (absent region: none; groups: at most MAX_GROUPS). */
export interface PlayerScopes {
  region: string | null;
  groups: readonly string[];
}

/** A player whose standings must move between scope boards: where they rank now, and what they left. */
export interface PendingMove {
  playerId: string;
  now: PlayerScopes;
  left: PlayerScopes;
}

/** Groups (clans, guilds) one player belongs to at most. */
export const MAX_GROUPS = 8;

// ISO 3166-1 alpha-2, optionally a 3166-2 subdivision (1 to 3 letters or digits after a hyphen).
const REGION = /^[A-Z]{2}(-[A-Z0-9]{1,3})?$/;
// Group ids are the studio's: letters, digits, `_`, `.`, `-`; never `:` `@` `{` `}` (they build keys).
const GROUP = /^[A-Za-z0-9_.-]{1,64}$/;

/** A region as stored: upper case; BAD_USER_INPUT 'region' unless ISO 3166-1 alpha-2 [-subdivision]. */
function parseRegion(region: string): string {
  const r = typeof region === 'string' ? region.toUpperCase() : '';
  if (!REGION.test(r))
    throw badInput(
      'region',
      'region must be an ISO 3166-1 alpha-2 code ("BR"), optionally with a subdivision ("BR-SP")',
    );
  return r;
}

/** A group id; BAD_USER_INPUT 'group' unless 1..64 of A-Z a-z 0-9 _ . - */
function parseGroup(group: string): string {
  if (typeof group !== 'string' || !GROUP.test(group))
    throw badInput('group', 'a group must be 1 to 64 of the characters A-Z a-z 0-9 _ . -');
  return group;
}

/** Checked scopes of a player: region upper-cased, groups unique and sorted. */
export function parsePlayerScopes(input: { region?: string | null; groups?: readonly string[] | null }): PlayerScopes {
  const groups = [...new Set((input.groups ?? []).map(parseGroup))].sort();
  if (groups.length > MAX_GROUPS) throw badInput('groups', `a player belongs to at most ${MAX_GROUPS} groups`);
  return { region: input.region == null ? null : parseRegion(input.region), groups };
}

/**
 * Every scope a player with these scopes ranks in: a subdivision's player ranks in its country
 * too (`BR-SP` → `r:BR`, `r:BR-SP`), then each group.
 */
export function scopesOf(s: PlayerScopes): string[] {
  const out: string[] = [];
  if (s.region) {
    const dash = s.region.indexOf('-');
    if (dash > 0) out.push(`r:${s.region.slice(0, dash)}`);
    out.push(`r:${s.region}`);
  }
  for (const g of s.groups) out.push(`g:${g}`);
  return out;
}

/** The scope a read asks for (`{region}` or `{group}`, exactly one); null: the whole board. */
export function requestedScope(
  input: { region?: string | null; group?: string | null } | null | undefined,
): string | null {
  if (input == null) return null;
  const { region, group } = input;
  if ((region == null) === (group == null)) throw badInput('scope', 'scope takes exactly one of region and group');
  return region != null ? `r:${parseRegion(region)}` : `g:${parseGroup(group!)}`;
}

/** A scope string as the API shows it (a league cohort, `c:`, is neither a region nor a group). */
export function scopeView(scope: string): { region: string | null; group: string | null } {
  if (scope.startsWith('r:')) return { region: scope.slice(2), group: null };
  return { region: null, group: scope.startsWith('g:') ? scope.slice(2) : null };
}

/** A change of one player's scopes: the Kafka message on `match-results`, keyed by playerId like their results. */
export interface ScopesMessage {
  v: 1;
  kind: 'scopes';
  playerId: string;
  region: string | null;
  groups: string[];
}

/** The message that sets a player's scopes. */
export function scopesMessage(playerId: string, scopes: PlayerScopes): ScopesMessage {
  return { v: 1, kind: 'scopes', playerId, region: scopes.region, groups: [...scopes.groups] };
}

/** Validates a decoded scopes message; BAD_USER_INPUT for anything else (ingest dead-letters it). */
export function parseScopesMessage(json: unknown): { playerId: string; scopes: PlayerScopes } {
  const o = (typeof json === 'object' && json !== null ? json : {}) as Partial<ScopesMessage>;
  if (
    o.v !== 1 ||
    o.kind !== 'scopes' ||
    !(o.region === null || typeof o.region === 'string') ||
    !Array.isArray(o.groups)
  )
    throw badInput(undefined, 'invalid scopes message: expected {v: 1, kind: "scopes", playerId, region, groups}');
  return { playerId: parsePlayerId(o.playerId as string), scopes: parsePlayerScopes(o) };
}

/** A group's place on a group board (docs/design.md#group-boards): its total and how many members count. */
export interface GroupStanding {
  group: string;
  rank: number;
  /** Its members' points summed (the best N of them when the season says so). */
  points: number;
  /** Members on the group's scope board. */
  members: number;
}
