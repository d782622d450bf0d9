CREATE TYPE "public"."board_window" AS ENUM('SEASON', 'DAY', 'WEEK');--> statement-breakpoint
CREATE TYPE "public"."rank_style" AS ENUM('ORDINAL', 'COMPETITION');--> statement-breakpoint
CREATE TYPE "public"."scoring_mode" AS ENUM('BEST', 'SUM');--> statement-breakpoint
CREATE TYPE "public"."season_status" AS ENUM('SCHEDULED', 'ACTIVE', 'CLOSED');--> statement-breakpoint
CREATE TYPE "public"."sort_order" AS ENUM('DESC', 'ASC');--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"key_hash" text NOT NULL,
	"scopes" text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "api_keys_key_hash_unique" UNIQUE("key_hash")
);
--> statement-breakpoint
CREATE TABLE "match_results" (
	"match_id" uuid NOT NULL,
	"player_id" bigint NOT NULL,
	"season_id" integer NOT NULL,
	"points" integer NOT NULL,
	"ended_at" timestamp with time zone NOT NULL,
	"kafka_partition" integer NOT NULL,
	"kafka_offset" bigint NOT NULL,
	"ingested_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "match_results_match_id_player_id_pk" PRIMARY KEY("match_id","player_id"),
	CONSTRAINT "match_results_points_non_negative" CHECK ("match_results"."points" >= 0)
);
--> statement-breakpoint
CREATE TABLE "players" (
	"id" bigint PRIMARY KEY NOT NULL,
	"display_name" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "seasons" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"starts_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone NOT NULL,
	"status" "season_status" DEFAULT 'SCHEDULED' NOT NULL,
	"scoring" "scoring_mode" NOT NULL,
	"sort_order" "sort_order" NOT NULL,
	"rank_style" "rank_style" NOT NULL,
	"max_points_per_match" integer NOT NULL,
	"points_bits" smallint NOT NULL,
	"time_bits" smallint NOT NULL,
	"time_unit_seconds" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "seasons_ends_after_starts" CHECK ("seasons"."ends_at" > "seasons"."starts_at"),
	CONSTRAINT "seasons_split_fits_double" CHECK ("seasons"."points_bits" + "seasons"."time_bits" <= 53)
);
--> statement-breakpoint
CREATE TABLE "standings" (
	"season_id" integer NOT NULL,
	"window" "board_window" NOT NULL,
	"period" text NOT NULL,
	"player_id" bigint NOT NULL,
	"points" bigint NOT NULL,
	"achieved_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "standings_season_id_window_period_player_id_pk" PRIMARY KEY("season_id","window","period","player_id")
);
--> statement-breakpoint
ALTER TABLE "match_results" ADD CONSTRAINT "match_results_season_id_seasons_id_fk" FOREIGN KEY ("season_id") REFERENCES "public"."seasons"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "standings" ADD CONSTRAINT "standings_season_id_seasons_id_fk" FOREIGN KEY ("season_id") REFERENCES "public"."seasons"("id") ON DELETE no action ON UPDATE no action;