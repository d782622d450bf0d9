-- Windows chosen per season (docs/design.md#windows): a MONTH window beside SEASON, DAY and WEEK;
-- each season keeps only the windows it declares (existing seasons: the three they always had),
-- and its DAY, WEEK and MONTH periods may turn over at an offset from UTC midnight. A new enum
-- value and two columns with constant defaults: catalog changes, milliseconds on any table.
ALTER TYPE "public"."board_window" ADD VALUE 'MONTH';--> statement-breakpoint
ALTER TABLE "seasons" ADD COLUMN "windows" "board_window"[] DEFAULT '{SEASON,DAY,WEEK}'::board_window[] NOT NULL;--> statement-breakpoint
ALTER TABLE "seasons" ADD COLUMN "reset_offset_minutes" integer DEFAULT 0 NOT NULL;