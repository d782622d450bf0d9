-- Scopes (docs/design.md#scopes): a player's region and groups, one row per player who has any.
-- A new table: no existing row is touched, so the migration is instant on any database.
CREATE TABLE "player_scopes" (
	"player_id" bigint PRIMARY KEY NOT NULL,
	"region" text,
	"groups" text[] DEFAULT '{}'::text[] NOT NULL,
	"prev_region" text,
	"prev_groups" text[] DEFAULT '{}'::text[] NOT NULL,
	"pending" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "player_scopes_region" ON "player_scopes" USING btree ("region" text_pattern_ops);--> statement-breakpoint
CREATE INDEX "player_scopes_groups" ON "player_scopes" USING gin ("groups");