import { endedPeriods } from '../domain/rewards.js';
import { boardName, boardsOf, turnoverOf, seasonsWithBoards, type Season, type Window } from '../domain/season.js';

/** How long after a period ends its rewards wait for late results (docs/design.md#rewards). */
export const PERIOD_REWARD_DELAY_MS = 10 * 60_000;

export interface PeriodRewardDeps {
  /** Grants a period's rules of a board once (postgres/rewards-store.ts); null: granted before. */
  grant(board: Season, window: Window, period: string): Promise<number | null>;
  /** Sends the season's unpublished rewards to Kafka (kafka/rewards-producer.ts). */
  publish(season: Season): Promise<number>;
  /** Resolves once ingest applied everything Kafka held when called (close-season.ts waitForIngest). */
  drained(): Promise<void>;
  delayMs: number;
}

/**
 * The scheduler's pass over DAY, WEEK and MONTH reward rules: for each period of a rule's window
 * that ended `delayMs` ago, once ingest has drained, its rules are granted from the period's
 * standings (once: a period granted before is skipped) and sent to Kafka. `rows` are season and
 * board rows alike (the scheduler's list). Returns how many rewards were granted.
 */
export async function grantEndedPeriods(deps: PeriodRewardDeps, rows: readonly Season[], at: Date): Promise<number> {
  let granted = 0;
  let drained = false;
  for (const season of seasonsWithBoards(rows)) {
    const rules = (season.rewards ?? []).filter((r) => r.window);
    if (rules.length === 0) continue;
    let any = false;
    const windows = new Map(rules.map((r) => [`${r.board}|${r.window}`, r] as const));
    for (const rule of windows.values()) {
      const board = boardsOf(season).find((b) => boardName(b) === rule.board);
      if (!board) continue;
      for (const period of endedPeriods(season, rule.window!, at, deps.delayMs, turnoverOf(board))) {
        if (!drained) {
          await deps.drained();
          drained = true;
        }
        const n = await deps.grant(board, rule.window!, period);
        if (n !== null) {
          granted += n;
          any = true;
        }
      }
    }
    if (any) await deps.publish(season);
  }
  return granted;
}
