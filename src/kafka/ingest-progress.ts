import type { Admin, Kafka } from 'kafkajs';
import type { IngestProgress } from '../service/close-season.js';

/** The ingest consumer group's progress through the results topic, from Kafka's admin API. */
export function createIngestProgress(
  kafka: Kafka,
  topic: string,
  groupId: string,
): IngestProgress & { close(): Promise<void> } {
  let admin: Promise<Admin> | undefined;
  // Connected on first use and kept: a close polls every few hundred ms while it drains.
  const connected = (): Promise<Admin> =>
    (admin ??= (async () => {
      const a = kafka.admin();
      try {
        await a.connect();
        return a;
      } catch (err) {
        admin = undefined; // the next call tries again
        throw err;
      }
    })());

  return {
    async endOffsets() {
      const offsets = await (await connected()).fetchTopicOffsets(topic);
      return offsets.map((o) => ({ partition: o.partition, end: BigInt(o.high), start: BigInt(o.low) }));
    },
    async committedOffsets() {
      const [t] = await (await connected()).fetchOffsets({ groupId, topics: [topic] });
      return new Map((t?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)]));
    },
    async close() {
      const a = await admin?.catch(() => undefined);
      admin = undefined;
      await a?.disconnect();
    },
  };
}
