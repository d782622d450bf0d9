-- Leagues (docs/design.md#leagues): a season's league, its players' cohorts, the tier counters,
-- players' tiers per league and the moves of each close. New tables and a nullable column: instant.
CREATE TABLE "league_cohorts" (
	"season_id" integer NOT NULL,
	"tier" integer NOT NULL,
	"placed" integer NOT NULL,
	CONSTRAINT "league_cohorts_season_id_tier_pk" PRIMARY KEY("season_id","tier")
);
--> statement-breakpoint
CREATE TABLE "league_members" (
	"season_id" integer NOT NULL,
	"player_id" bigint NOT NULL,
	"tier" integer NOT NULL,
	"cohort" integer NOT NULL,
	CONSTRAINT "league_members_season_id_player_id_pk" PRIMARY KEY("season_id","player_id")
);
--> statement-breakpoint
CREATE TABLE "league_moves" (
	"season_id" integer NOT NULL,
	"player_id" bigint NOT NULL,
	"cohort" integer NOT NULL,
	"rank" integer NOT NULL,
	"from_tier" integer NOT NULL,
	"to_tier" integer NOT NULL,
	CONSTRAINT "league_moves_season_id_player_id_pk" PRIMARY KEY("season_id","player_id")
);
--> statement-breakpoint
CREATE TABLE "league_tiers" (
	"league" text NOT NULL,
	"player_id" bigint NOT NULL,
	"tier" integer NOT NULL,
	CONSTRAINT "league_tiers_league_player_id_pk" PRIMARY KEY("league","player_id")
);
--> statement-breakpoint
ALTER TABLE "seasons" ADD COLUMN "league" jsonb;