-- History that does not rot (docs/design.md#storage). match_results and match_claims become
-- partitioned tables whose keys are led by time inside each partition, so an insert touches only
-- the newest pages of the newest partition however much history there is, and a season's or a
-- day's history can later be archived and dropped whole. Existing rows are copied over; nothing
-- is lost. Cost measured in docs/design.md#migrating-to-partitions.

-- Creates p_child shaped like p_like and attaches it to p_parent with p_bound, unless it is there
-- already. LIKE + ATTACH (not CREATE TABLE ... PARTITION OF) because ATTACH holds only a SHARE
-- UPDATE EXCLUSIVE lock on the parent: inserts into the other partitions go on meanwhile. The
-- advisory lock serialises two creators of the same partition (two ingest processes).
CREATE FUNCTION ladder_attach_partition(p_like text, p_parent text, p_child text, p_bound text, p_partition_by text)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('ladder_attach_partition'), hashtext(p_child));
  IF EXISTS (SELECT 1 FROM pg_inherits WHERE inhrelid = to_regclass(p_child)) THEN
    RETURN;
  END IF;
  EXECUTE format('CREATE TABLE IF NOT EXISTS %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS) %s',
                 p_child, p_like, coalesce('PARTITION BY ' || p_partition_by, ''));
  EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I %s', p_parent, p_child, p_bound);
END $$;
--> statement-breakpoint

-- The partition of match_results that holds season p_season's results of UTC day p_day (and the
-- season's own partition above it), created if missing. Returns the partition's name.
CREATE FUNCTION ladder_results_partition(p_season integer, p_day date)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  season_table text := format('match_results_s%s', p_season);
  day_table text := format('match_results_s%s_%s', p_season, to_char(p_day, 'YYYYMMDD'));
BEGIN
  IF to_regclass(day_table) IS NULL OR NOT EXISTS (SELECT 1 FROM pg_inherits WHERE inhrelid = to_regclass(day_table)) THEN
    PERFORM ladder_attach_partition('match_results', 'match_results', season_table,
                                    format('FOR VALUES IN (%s)', p_season), 'RANGE (ended_at)');
    PERFORM ladder_attach_partition('match_results', season_table, day_table,
                                    format('FOR VALUES FROM (%L) TO (%L)',
                                           p_day::timestamp AT TIME ZONE 'UTC', (p_day + 1)::timestamp AT TIME ZONE 'UTC'),
                                    NULL);
  END IF;
  RETURN day_table;
END $$;
--> statement-breakpoint

-- The partition of match_claims for UTC day p_day, created if missing. Returns its name.
CREATE FUNCTION ladder_claims_partition(p_day date)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  day_table text := format('match_claims_%s', to_char(p_day, 'YYYYMMDD'));
BEGIN
  IF to_regclass(day_table) IS NULL OR NOT EXISTS (SELECT 1 FROM pg_inherits WHERE inhrelid = to_regclass(day_table)) THEN
    PERFORM ladder_attach_partition('match_claims', 'match_claims', day_table,
                                    format('FOR VALUES FROM (%L) TO (%L)', p_day, p_day + 1), NULL);
  END IF;
  RETURN day_table;
END $$;
--> statement-breakpoint

-- Each claim's day is its match's endedAt day, read before match_results moves; a claim whose
-- results never arrived takes the day it was made.
CREATE TABLE "ladder_claim_days" AS
SELECT c.match_id, c.payload_hash, c.claimed_at,
       coalesce(r.day, (c.claimed_at AT TIME ZONE 'UTC')::date) AS day
FROM "match_claims" c
LEFT JOIN (SELECT match_id, (min(ended_at) AT TIME ZONE 'UTC')::date AS day FROM "match_results" GROUP BY match_id) r
  USING (match_id);
--> statement-breakpoint
DROP TABLE "match_claims";
--> statement-breakpoint
CREATE TABLE "match_claims" (
	"day" date NOT NULL,
	"match_id" uuid NOT NULL,
	"payload_hash" "bytea" NOT NULL,
	"claimed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "match_claims_day_match_id_pk" PRIMARY KEY("day","match_id")
) PARTITION BY RANGE ("day");
--> statement-breakpoint
SELECT ladder_claims_partition(day) FROM (SELECT day FROM "ladder_claim_days" UNION SELECT day + 1 FROM "ladder_claim_days") AS d;
--> statement-breakpoint
INSERT INTO "match_claims" (day, match_id, payload_hash, claimed_at)
SELECT day + k, match_id, payload_hash, claimed_at FROM "ladder_claim_days", (VALUES (0), (1)) AS two(k);
--> statement-breakpoint
DROP TABLE "ladder_claim_days";
--> statement-breakpoint

ALTER TABLE "match_results" RENAME TO "match_results_unpartitioned";
--> statement-breakpoint
CREATE TABLE "match_results" (
	"season_id" integer NOT NULL,
	"ended_at" timestamp with time zone NOT NULL,
	"match_id" uuid NOT NULL,
	"player_id" bigint NOT NULL,
	"points" integer NOT NULL,
	"kafka_partition" integer NOT NULL,
	"kafka_offset" bigint NOT NULL,
	"ingested_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "match_results_season_id_ended_at_match_id_player_id_pk" PRIMARY KEY("season_id","ended_at","match_id","player_id"),
	CONSTRAINT "match_results_points_non_negative" CHECK ("points" >= 0)
) PARTITION BY LIST ("season_id");
--> statement-breakpoint
CREATE INDEX "match_results_player" ON "match_results" USING btree ("player_id");
--> statement-breakpoint
SELECT ladder_results_partition(season_id, day)
FROM (SELECT DISTINCT season_id, (ended_at AT TIME ZONE 'UTC')::date AS day FROM "match_results_unpartitioned") AS d;
--> statement-breakpoint
-- In key order: each partition's index then grows at its right edge, as ingest will grow it.
INSERT INTO "match_results" (season_id, ended_at, match_id, player_id, points, kafka_partition, kafka_offset, ingested_at)
SELECT season_id, ended_at, match_id, player_id, points, kafka_partition, kafka_offset, ingested_at
FROM "match_results_unpartitioned"
ORDER BY season_id, ended_at, match_id, player_id;
--> statement-breakpoint
DROP TABLE "match_results_unpartitioned";
