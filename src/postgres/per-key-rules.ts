// The fold and combine of a board whose keys aggregate on their own (docs/design.md#per-key-aggregates),
// written in SQL from its keys: domain/key-aggregates.ts foldKeys and packState, key by key. Each
// result's points are its packed tuple (board-keys.ts packKeys), unpacked here with the key's
// shift and mask; the standing keeps each key's value and time in standings.key_state, and its
// points and achieved_at are that state packed. Only validated integers are pasted in.
import { bitsOf } from '../domain/board-keys.js';
import type { BoardKey } from '../domain/season.js';
import type { RuleSql } from './combine-rules.js';
const toTime = (ms: string) => `(timestamptz 'epoch' + (${ms}) * interval '1 millisecond')`;

interface Layout {
  key: BoardKey;
  shift: number;
  mask: number;
}

function layoutOf(keys: readonly BoardKey[]): Layout[] {
  let shift = 0;
  const out: Layout[] = [];
  for (let i = keys.length - 1; i >= 0; i--) {
    const key = keys[i]!;
    out.unshift({ key, shift, mask: 2 ** bitsOf(key) - 1 });
    shift += bitsOf(key);
  }
  return out;
}

/** The packed points of per-key values (SQL expressions): a SUM past its max is held at max. */
function pack(layout: readonly Layout[], values: readonly string[]): string {
  return layout
    .map(({ key, shift }, i) => {
      const field = key.order === 'DESC' ? `least(${values[i]}, ${key.max})` : `(${key.max} - ${values[i]})`;
      return `${field} * ${2 ** shift}`;
    })
    .join(' + ');
}

/**
 * When the tuple was reached (key-aggregates.ts packState): the latest time of a key that is not
 * full (a SUM at its max), or the first result's when every key is (greatest() skips nulls).
 */
function reachedAt(
  layout: readonly Layout[],
  values: readonly string[],
  times: readonly string[],
  first: string,
): string {
  const counted = layout.map(({ key }, i) =>
    key.aggregate === 'SUM' ? `case when ${values[i]} >= ${key.max} then null else ${times[i]} end` : times[i],
  );
  return `coalesce(greatest(${counted.join(', ')}), ${first})`;
}

/** The rule of a board with these keys (some SUM): its statement parts (results-store.ts keeps one per board). */
export function perKeyRule(keys: readonly BoardKey[]): RuleSql {
  const layout = layoutOf(keys);
  const n = keys.length;
  const idx = layout.map((_, i) => i + 1);
  const unpack = layout.map(({ key, shift, mask }, i) => {
    const field = `((points::int8 >> ${shift}) & ${mask})`;
    return `${key.order === 'DESC' ? field : `(${key.max} - ${field})`} as v${i + 1}`;
  });
  // BEST keys: the group's best value beside each row, to date the earliest result holding it.
  const bests = layout.flatMap(({ key }, i) =>
    key.aggregate === 'SUM' ? [] : [`${key.order === 'DESC' ? 'max' : 'min'}(v${i + 1}) over w as m${i + 1}`],
  );
  const aggs = layout.map(({ key }, i) => (key.aggregate === 'SUM' ? `sum(v${i + 1})::int8` : `max(m${i + 1})`));
  const times = layout.map(({ key }, i) =>
    key.aggregate === 'SUM'
      ? `case when sum(v${i + 1}) = 0 then min(ms) else max(ms) filter (where v${i + 1} > 0) end`
      : `min(ms) filter (where v${i + 1} = m${i + 1})`,
  );
  const a = idx.map((i) => `a${i}`);
  const t = idx.map((i) => `t${i}`);
  const fold = `
    select season_id, win, period, player_id, ${pack(layout, a)}, ${toTime(reachedAt(layout, a, t, 'first'))}, metadata,
           array[${[...a, ...t, 'latest', 'first'].join(', ')}]::int8[]
    from (
      select season_id, win, period, player_id,
             ${aggs.map((x, i) => `${x} as a${i + 1}`).join(', ')},
             ${times.map((x, i) => `${x} as t${i + 1}`).join(', ')},
             max(ms) as latest, min(ms) as first, (array_agg(metadata order by ms desc))[1] as metadata
      from (
        select u.*${bests.length > 0 ? `, ${bests.join(', ')}` : ''}
        from (select season_id, win, period, player_id, metadata,
                     floor(extract(epoch from ended_at) * 1000)::int8 as ms, ${unpack.join(', ')}
              from b) u
        window w as (partition by season_id, win, period, player_id)) x
      group by season_id, win, period, player_id) g
    order by season_id, win, period, player_id`;

  // Held (S) and new (E): [value 1..n, time 1..n, latest].
  const S = (i: number) => `st.key_state[${i}]`;
  const E = (i: number) => `excluded.key_state[${i}]`;
  const values = layout.map(({ key }, k) => {
    const i = k + 1;
    if (key.aggregate === 'SUM') return `(${S(i)} + ${E(i)})`;
    return `${key.order === 'DESC' ? 'greatest' : 'least'}(${S(i)}, ${E(i)})`;
  });
  const reached = layout.map(({ key }, k) => {
    const [i, j] = [k + 1, n + k + 1];
    if (key.aggregate === 'SUM')
      return `(case when ${E(i)} = 0 then (case when ${S(i)} = 0 then least(${S(j)}, ${E(j)}) else ${S(j)} end)
                    when ${S(i)} = 0 then ${E(j)} else greatest(${S(j)}, ${E(j)}) end)`;
    const better = key.order === 'DESC' ? '>' : '<';
    return `(case when ${E(i)} ${better} ${S(i)} then ${E(j)} when ${E(i)} = ${S(i)} then least(${S(j)}, ${E(j)}) else ${S(j)} end)`;
  });
  const [latest, first] = [2 * n + 1, 2 * n + 2];
  const firstAt = `least(${S(first)}, ${E(first)})`;
  const state = `array[${[...values, ...reached, `greatest(${S(latest)}, ${E(latest)})`, firstAt].join(', ')}]::int8[]`;
  const set = `
    key_state = ${state},
    points = ${pack(layout, values)},
    achieved_at = ${toTime(reachedAt(layout, values, reached, firstAt))},
    metadata = case when ${E(latest)} > ${S(latest)} then excluded.metadata else st.metadata end`;
  return { fold, set, changed: `${state} is distinct from st.key_state`, keyState: true };
}
