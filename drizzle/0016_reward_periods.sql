-- Period rewards (docs/design.md#rewards): the DAY, WEEK and MONTH periods whose rules were granted.
-- A new table: instant anywhere.
CREATE TABLE "reward_periods" (
	"season_id" integer NOT NULL,
	"board" text NOT NULL,
	"window" "board_window" NOT NULL,
	"period" text NOT NULL,
	"granted_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "reward_periods_season_id_board_window_period_pk" PRIMARY KEY("season_id","board","window","period")
);
