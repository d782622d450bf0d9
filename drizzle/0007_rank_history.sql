CREATE TABLE "rank_slots" (
	"season_id" integer NOT NULL,
	"player_id" bigint NOT NULL,
	"slot" integer NOT NULL,
	CONSTRAINT "rank_slots_season_id_player_id_pk" PRIMARY KEY("season_id","player_id")
);
--> statement-breakpoint
CREATE TABLE "rank_snapshots" (
	"season_id" integer NOT NULL,
	"boundary" timestamp with time zone NOT NULL,
	"chunk" integer NOT NULL,
	"taken_at" timestamp with time zone NOT NULL,
	"players" integer NOT NULL,
	"ranks" "bytea" NOT NULL,
	CONSTRAINT "rank_snapshots_season_id_boundary_chunk_pk" PRIMARY KEY("season_id","boundary","chunk")
);
--> statement-breakpoint
-- Uncompressed and out of line: substring() of a player's 4 bytes then reads one TOAST page, not the chunk.
ALTER TABLE "rank_snapshots" ALTER COLUMN "ranks" SET STORAGE EXTERNAL;
