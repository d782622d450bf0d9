-- Entry metadata (docs/design.md#entry-metadata): what a game server attaches to a result (the
-- car, the character, a replay id), kept on the result and on the standing it set. Nullable,
-- without a default: on PostgreSQL 11+ adding such a column changes only the catalog (the
-- partitions of match_results get it too), so this takes milliseconds on a table of any size.
ALTER TABLE "match_results" ADD COLUMN "metadata" jsonb;--> statement-breakpoint
ALTER TABLE "standings" ADD COLUMN "metadata" jsonb;