// The simulated players and their matches (scripts/simulator.ts sends them): deterministic names,
// regions, clans and skills per player id, and each match's results.
/** A 32-bit integer hash (lowbias32): deterministic names and skills without storing anything. */
function hash32(n: number): number {
  let x = Math.imul(n ^ (n >>> 16), 0x7feb352d);
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
  return (x ^ (x >>> 16)) >>> 0;
}

const CHARACTERS = ['Kestrel', 'Ember', 'Vanta', 'Juno', 'Rook', 'Sable', 'Orion', 'Mako'];
const MAPS = ['Harbor', 'Dunes', 'Citadel', 'Glacier'];
// Where the demo's players live and which clan they are in (docs/design.md#scopes).
const REGIONS = ['BR-SP', 'BR-RJ', 'US-CA', 'US-NY', 'DE', 'FR', 'JP', 'KR', 'GB', 'PL'];
const CLANS = ['wolves', 'ravens', 'otters', 'foxes', 'owls', 'lynx', 'bears', 'hawks'];

/** A player's region and clan (none for one player in four), the same in every run. */
export function scopesFor(id: number): { region: string; groups: string[] } {
  const h = hash32(id * 7 + 3);
  return { region: REGIONS[h % REGIONS.length]!, groups: h % 4 === 0 ? [] : [CLANS[(h >>> 8) % CLANS.length]!] };
}

const ADJECTIVES =
  'Swift Silent Crimson Lucky Brave Frosty Sneaky Mighty Clever Wild Golden Shadow Rapid Stormy Iron Cosmic Fuzzy Grumpy Jolly Nimble'.split(
    ' ',
  );
const ANIMALS =
  'Otter Falcon Badger Panda Wolf Gecko Lynx Yak Heron Moose Cobra Koala Raven Bison Ferret Walrus Mantis Puffin Jaguar Llama'.split(
    ' ',
  );

/** The display name of a simulated player, the same on every run and unique (e.g. "SwiftOtter42"). */
export function playerName(id: number): string {
  const h = hash32(id);
  return `${ADJECTIVES[h % ADJECTIVES.length]}${ANIMALS[(h >>> 8) % ANIMALS.length]}${id}`;
}

/** A player's skill in 0..1, fixed per id: the best players stay near the top, the rest churn. */
function skillOf(id: number): number {
  const h = hash32(id ^ 0x5eed);
  // The mean of three uniforms: most players are average, a few are very good or very bad.
  return ((h & 0x3ff) + ((h >>> 10) & 0x3ff) + ((h >>> 20) & 0x3ff)) / (3 * 0x3ff);
}

/**
 * The id of the player with activity rank 0..players-1 (0 plays most). A stride coprime with
 * `players` makes this a permutation, so the busiest players are spread over the id range
 * instead of being ids 1, 2, 3...
 */
function idOfActivityRank(rank: number, players: number): number {
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  let stride = 7919;
  while (gcd(stride, players) !== 1) stride += 2;
  return ((rank * stride + 4242) % players) + FIRST_PLAYER_ID;
}

/**
 * The simulated players' first id: away from the small ids tests generate, since the simulator
 * gives its players regions and clans, which are each player's everywhere (docs/design.md#scopes).
 */
export const FIRST_PLAYER_ID = 1_000_001;

/** The id of the simulated player who plays the most: a good one to look up with `around`. */
export function regularPlayerId(players: number): string {
  return String(idOfActivityRank(0, players));
}

/** One match: 2..8 distinct players; the busiest plays ~100x as often as the median player. */
export function pickPlayers(players: number): number[] {
  const size = Math.min(players, 2 + Math.floor(Math.random() * 7));
  const ids = new Set<number>();
  while (ids.size < size) ids.add(idOfActivityRank(Math.floor(players * Math.random() ** 2), players));
  return [...ids];
}

/** Points of one player in one match: mostly skill, some luck, scaled to the season's maximum. */
function pointsFor(id: number, maxPoints: number): number {
  const luck = (Math.random() + Math.random() + Math.random() - 1.5) * 0.1; // -0.15..0.15
  // At most 0.95: nobody pins the maximum, so the head is ordered by skill, not by ties at the cap.
  const performance = Math.max(0, 0.1 + 0.7 * skillOf(id) + luck);
  return Math.round(performance * performance * maxPoints);
}

/**
 * A player's further stats in one match, for the boards of its seasons that rank them (max: each
 * stat's largest value): `wins` 1 for the match's winner, a stat whose name holds `time` lower for
 * better players (a lap time), any other higher (kills).
 */
function statsFor(id: number, winner: boolean, maxes: ReadonlyMap<string, number>) {
  const luck = (Math.random() - 0.5) * 0.3;
  const performance = Math.min(1, Math.max(0, 0.1 + 0.7 * skillOf(id) + luck));
  return [...maxes].map(([name, max]) => ({
    name,
    value:
      name === 'wins'
        ? Math.min(max, winner ? 1 : 0)
        : name === 'rating'
          ? // A rating around the player's skill, moved by this match's luck: up or down (a LAST board).
            Math.round(max * Math.min(1, Math.max(0, 0.2 + 0.6 * skillOf(id) + luck)))
          : Math.round(max * (name.includes('time') ? 0.1 + 0.15 * (1 - performance) : 0.9 * performance ** 2)),
  }));
}

/**
 * The results of one match of `ids` (2..8 players): points and further stats by skill and luck, what a
 * game server attaches (metadata), and each player's name and scopes unless `named` has them.
 */
export function matchResults(
  ids: readonly number[],
  maxPoints: number,
  statMaxes: ReadonlyMap<string, number>,
  named: ReadonlySet<number>,
) {
  const map = MAPS[Math.floor(Math.random() * MAPS.length)]!;
  const points = ids.map((id) => pointsFor(id, maxPoints));
  const winner = points.indexOf(Math.max(...points));
  return ids.map((id, i) => ({
    playerId: String(id),
    points: points[i]!,
    ...(statMaxes.size > 0 ? { stats: statsFor(id, i === winner, statMaxes) } : {}),
    // What a game server attaches to a result; the board shows the one of the result that set the standing.
    metadata: { character: CHARACTERS[hash32(id) % CHARACTERS.length]!, map },
    // Name and scopes once per run: each is stored, and scopes cost ingest a step (docs/design.md#scopes).
    ...(named.has(id) ? {} : { displayName: playerName(id), scopes: scopesFor(id) }),
  }));
}
