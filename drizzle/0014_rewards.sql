-- Rewards (docs/design.md#rewards): a season's reward rules (a nullable column: a catalog change) and
-- the rewards granted at its close, one row per idempotency key. A new table: instant anywhere.
CREATE TABLE "rewards" (
	"key" text PRIMARY KEY NOT NULL,
	"season_id" integer NOT NULL,
	"board" text NOT NULL,
	"window" "board_window" NOT NULL,
	"period" text NOT NULL,
	"scope" text NOT NULL,
	"player_id" bigint NOT NULL,
	"rule" text NOT NULL,
	"rank" integer NOT NULL,
	"points" bigint NOT NULL,
	"reward" jsonb NOT NULL,
	"granted_at" timestamp with time zone DEFAULT now() NOT NULL,
	"published_at" timestamp with time zone,
	"claimed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "seasons" ADD COLUMN "reward_rules" jsonb;--> statement-breakpoint
CREATE INDEX "rewards_player" ON "rewards" USING btree ("player_id","granted_at");--> statement-breakpoint
CREATE INDEX "rewards_unpublished" ON "rewards" USING btree ("season_id") WHERE "rewards"."published_at" is null;