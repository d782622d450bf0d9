ALTER TYPE "public"."board_window" ADD VALUE 'CUSTOM';--> statement-breakpoint
ALTER TABLE "seasons" ADD COLUMN "period_hours" integer;