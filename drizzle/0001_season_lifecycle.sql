CREATE TABLE "admin_audit" (
	"id" serial PRIMARY KEY NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"actor" text NOT NULL,
	"action" text NOT NULL,
	"season_id" integer,
	"player_id" bigint,
	"match_id" uuid,
	"reason" text NOT NULL,
	"details" jsonb
);
--> statement-breakpoint
CREATE TABLE "blocked_players" (
	"season_id" integer NOT NULL,
	"player_id" bigint NOT NULL,
	"reason" text NOT NULL,
	"blocked_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "blocked_players_season_id_player_id_pk" PRIMARY KEY("season_id","player_id")
);
--> statement-breakpoint
CREATE TABLE "season_final_standings" (
	"season_id" integer NOT NULL,
	"window" "board_window" NOT NULL,
	"period" text NOT NULL,
	"player_id" bigint NOT NULL,
	"position" integer NOT NULL,
	"rank" integer NOT NULL,
	"points" bigint NOT NULL,
	"achieved_at" timestamp with time zone NOT NULL,
	CONSTRAINT "season_final_standings_season_id_window_period_player_id_pk" PRIMARY KEY("season_id","window","period","player_id")
);
--> statement-breakpoint
ALTER TABLE "seasons" ADD COLUMN "finalized_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "blocked_players" ADD CONSTRAINT "blocked_players_season_id_seasons_id_fk" FOREIGN KEY ("season_id") REFERENCES "public"."seasons"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "season_final_standings" ADD CONSTRAINT "season_final_standings_season_id_seasons_id_fk" FOREIGN KEY ("season_id") REFERENCES "public"."seasons"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "season_final_standings_position" ON "season_final_standings" USING btree ("season_id","window","period","position");