-- Repeating seasons (seasons.repeats, .follows), league placement by last season's rank
-- (league_tiers.seed, league_cohorts.seeded_cohorts), and scopes frozen at a board's close
-- (season_final_scopes). New columns with constant defaults and a new table: instant. The backfill
-- freezes already closed seasons at the scopes their players have now (one pass over their final
-- standings' players who have scopes).
CREATE TABLE "season_final_scopes" (
	"season_id" integer NOT NULL,
	"player_id" bigint NOT NULL,
	"region" text,
	"groups" text[] NOT NULL,
	CONSTRAINT "season_final_scopes_season_id_player_id_pk" PRIMARY KEY("season_id","player_id")
);
--> statement-breakpoint
ALTER TABLE "league_cohorts" ADD COLUMN "seeded_cohorts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "league_tiers" ADD COLUMN "seed" integer;--> statement-breakpoint
ALTER TABLE "seasons" ADD COLUMN "repeats" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "seasons" ADD COLUMN "follows" integer;--> statement-breakpoint
ALTER TABLE "seasons" ADD CONSTRAINT "seasons_follows_seasons_id_fk" FOREIGN KEY ("follows") REFERENCES "public"."seasons"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "league_tiers_seeds" ON "league_tiers" USING btree ("league","tier","seed");--> statement-breakpoint
CREATE UNIQUE INDEX "seasons_follows" ON "seasons" USING btree ("follows");
--> statement-breakpoint
INSERT INTO season_final_scopes (season_id, player_id, region, groups)
SELECT DISTINCT f.season_id, p.player_id, p.region, p.groups
FROM season_final_standings f JOIN player_scopes p USING (player_id)
ON CONFLICT DO NOTHING;
