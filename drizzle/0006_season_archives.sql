CREATE TABLE "season_archives" (
	"season_id" integer PRIMARY KEY NOT NULL,
	"dir" text NOT NULL,
	"files" integer NOT NULL,
	"rows" bigint NOT NULL,
	"manifest_sha256" text NOT NULL,
	"verified_at" timestamp with time zone NOT NULL,
	"dropped_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "season_archives" ADD CONSTRAINT "season_archives_season_id_seasons_id_fk" FOREIGN KEY ("season_id") REFERENCES "public"."seasons"("id") ON DELETE no action ON UPDATE no action;