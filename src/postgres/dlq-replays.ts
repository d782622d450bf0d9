// Which dead letters were replayed (console/ingest.ts): rows of dlq_replays, one per DLQ topic,
// partition and offset. A replay claims its rows and sends in one transaction, so a row exists
// only once Kafka acknowledged the message, and two replays of one letter send it once.
import type { Sql } from './client.js';

/** A dead letter's place in the DLQ. */
export interface LetterAt {
  partition: number;
  offset: string;
}

export function createDlqReplays(sql: Sql) {
  return {
    /** The replays of letters of `partition` with offsets in [from, to): `${offset}` → when and by whom. */
    async within(dlqTopic: string, partition: number, from: bigint, to: bigint) {
      const rows = await sql<Array<{ offset: string; at_ms: string; actor: string }>>`
        select "offset"::text as "offset", floor(extract(epoch from replayed_at) * 1000)::int8 as at_ms, actor
        from dlq_replays
        where dlq_topic = ${dlqTopic} and partition = ${partition}
          and "offset" >= ${from.toString()}::int8 and "offset" < ${to.toString()}::int8`;
      return new Map(rows.map((r) => [r.offset, { at: new Date(Number(r.at_ms)), actor: r.actor }]));
    },

    /**
     * Claims the letters not replayed yet and runs `send` with them, in one transaction: committed
     * once `send` resolved, rolled back (nothing marked) when it rejects. A concurrent claim of the
     * same letter waits for this one and then finds it taken. Returns the letters claimed.
     */
    async claim<L extends LetterAt>(
      dlqTopic: string,
      letters: readonly L[],
      actor: string,
      send: (claimed: L[]) => Promise<void>,
    ): Promise<L[]> {
      if (letters.length === 0) return [];
      const claimed = await sql.begin(async (tx) => {
        const rows = await tx<Array<{ partition: number; offset: string }>>`
          insert into dlq_replays (dlq_topic, partition, "offset", actor)
          select ${dlqTopic}, p, o, ${actor}
          from unnest(${tx.array(letters.map((l) => l.partition))}::int4[], ${tx.array(letters.map((l) => l.offset))}::int8[])
            as t(p, o)
          on conflict do nothing
          returning partition, "offset"::text as "offset"`;
        const taken = new Set(rows.map((r) => `${r.partition}:${r.offset}`));
        const mine = letters.filter((l) => taken.has(`${l.partition}:${l.offset}`));
        if (mine.length > 0) await send(mine);
        return mine;
      });
      return claimed as L[];
    },
  };
}

export type DlqReplays = ReturnType<typeof createDlqReplays>;
