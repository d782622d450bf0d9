CREATE TABLE "match_claims" (
	"match_id" uuid PRIMARY KEY NOT NULL,
	"payload_hash" "bytea" NOT NULL,
	"claimed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- Matches stored before claims existed keep their payload: a retry of one is still accepted and a
-- reuse of its matchId with other results refused. The text is domain/submission.ts claimText.
INSERT INTO "match_claims" ("match_id", "payload_hash")
SELECT "match_id", sha256(convert_to(
  min("season_id")::text || '|' || floor(extract(epoch from min("ended_at")) * 1000)::int8::text || '|'
  || string_agg("player_id"::text || ':' || "points"::text, ',' ORDER BY "player_id"), 'UTF8'))
FROM "match_results" GROUP BY "match_id"
ON CONFLICT DO NOTHING;
