ALTER TABLE "match_results" DROP CONSTRAINT "match_results_season_id_seasons_id_fk";
--> statement-breakpoint
ALTER TABLE "standings" DROP CONSTRAINT "standings_season_id_seasons_id_fk";
--> statement-breakpoint
-- Room on each page for a standing's next version: a raised standing is then a HOT update (no new
-- index entry). Applies to pages written from now on.
ALTER TABLE "standings" SET (fillfactor = 80);
