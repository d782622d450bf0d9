-- Dead letters the console replayed (console/ingest.ts, docs/operations.md#console): one row per DLQ
-- topic, partition and offset, so a replay happens once and "replay all" skips it. A new table: instant.
CREATE TABLE "dlq_replays" (
	"dlq_topic" text NOT NULL,
	"partition" integer NOT NULL,
	"offset" bigint NOT NULL,
	"replayed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"actor" text NOT NULL,
	CONSTRAINT "dlq_replays_dlq_topic_partition_offset_pk" PRIMARY KEY("dlq_topic","partition","offset")
);
