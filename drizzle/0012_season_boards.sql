-- Several boards per season (docs/design.md#boards): each further board is a seasons row of its
-- own that names its season in parent_id, with the stat (or the keys) it ranks. Existing seasons
-- keep one board, 'points', ranking the stat 'points': exactly what they ranked. Columns with
-- constant defaults and an index on a table of a few rows: catalog changes, milliseconds.
ALTER TABLE "seasons" ADD COLUMN "parent_id" integer;--> statement-breakpoint
ALTER TABLE "seasons" ADD COLUMN "board" text DEFAULT 'points' NOT NULL;--> statement-breakpoint
ALTER TABLE "seasons" ADD COLUMN "stat" text DEFAULT 'points' NOT NULL;--> statement-breakpoint
ALTER TABLE "seasons" ADD COLUMN "board_keys" jsonb;--> statement-breakpoint
ALTER TABLE "seasons" ADD CONSTRAINT "seasons_parent_id_seasons_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."seasons"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "seasons_board_name" ON "seasons" USING btree ("parent_id","board");