-- Players hidden from public boards pending review (docs/design.md#moderation): a new table, instant.
CREATE TABLE "hidden_players" (
	"season_id" integer NOT NULL,
	"player_id" bigint NOT NULL,
	"reason" text NOT NULL,
	"hidden_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "hidden_players_season_id_player_id_pk" PRIMARY KEY("season_id","player_id")
);
--> statement-breakpoint
ALTER TABLE "hidden_players" ADD CONSTRAINT "hidden_players_season_id_seasons_id_fk" FOREIGN KEY ("season_id") REFERENCES "public"."seasons"("id") ON DELETE no action ON UPDATE no action;