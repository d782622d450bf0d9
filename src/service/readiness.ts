// What /ready answers: every check run at once, each bounded in time.

/** What /ready reports: ready when every check is 'ok'. */
export interface Readiness {
  ok: boolean;
  checks: Record<string, string>;
}

/**
 * Runs every check at once; a check is 'ok' when it resolves within `timeoutMs`, else the reason
 * (its error, or the time-out): a readiness check must not hang on the outage it reports.
 */
export async function checkReadiness(
  checks: Record<string, () => Promise<unknown>>,
  timeoutMs: number,
): Promise<Readiness> {
  // Filled in the order the checks are given, whichever answers first.
  const results: Record<string, string> = Object.fromEntries(Object.keys(checks).map((name) => [name, 'waiting']));
  await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs / 1000} s`)), timeoutMs);
      });
      try {
        await Promise.race([check(), timeout]);
        results[name] = 'ok';
      } catch (err) {
        results[name] = (err as Error)?.message || String(err);
      }
      clearTimeout(timer);
    }),
  );
  return readinessOf(results);
}

/** `own` completed with the checks of `other` it does not have (an API worker and its primary). */
export function withChecksOf(own: Readiness, other: Readiness): Readiness {
  const checks = { ...own.checks };
  for (const [name, check] of Object.entries(other.checks)) checks[name] ??= check;
  return readinessOf(checks);
}

function readinessOf(checks: Record<string, string>): Readiness {
  return { ok: Object.values(checks).every((c) => c === 'ok'), checks };
}
