// A close while the ingest consumer still has a backlog: every result produced to Kafka before the
// close (endedAt inside the season) is in the final standings; one produced after it is refused.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodec } from '../../src/domain/score-codec.js';
import type { Season } from '../../src/domain/season.js';
import type { MatchResultMessage } from '../../src/domain/result-message.js';
import { testConfig } from '../support/env.js';
import { generateResults, toRecords } from '../support/generate.js';
import { expectedBoards } from '../support/oracle.js';
import {
  caughtUp,
  createSeason,
  groupProgress,
  produceRaw,
  waitFor,
  startIngest,
  type Services,
} from '../support/services.js';

const config = testConfig();
let s: Services;
let ingest: Awaited<ReturnType<typeof startIngest>>;

beforeAll(async () => {
  ingest = await startIngest(config);
  s = ingest.s;
});

afterAll(async () => {
  await ingest?.close();
});

/** season_final_standings of a board as the oracle's keys name it, best first: [playerId, points]. */
async function finalBoards(season: Season): Promise<Map<string, Array<[string, number]>>> {
  const rows = await s.pg.sql<Array<{ window: string; period: string; player_id: string; points: string }>>`
    select "window", period, player_id, points from season_final_standings
    where season_id = ${season.id} order by "window", period, position`;
  const out = new Map<string, Array<[string, number]>>();
  for (const r of rows) {
    const key =
      r.window === 'SEASON' ? `lb:{s${season.id}}` : `lb:{s${season.id}}:${r.window === 'DAY' ? 'd' : 'w'}:${r.period}`;
    out.set(key, [...(out.get(key) ?? []), [r.player_id, Number(r.points)]]);
  }
  return out;
}

/** The oracle's boards (ZRANGE order: worst first) as [playerId, points], best first. */
function oracleBoards(season: Season, input: readonly MatchResultMessage[]): Map<string, Array<[string, number]>> {
  const codec = createCodec(season);
  const out = new Map<string, Array<[string, number]>>();
  for (const [key, entries] of expectedBoards(
    season,
    input.map((m) => ({ ...m, endedAt: new Date(m.endedAt) })),
  )) {
    out.set(
      key,
      entries.map(([player, score]): [string, number] => [player, codec.decode(Number(score)).points]).reverse(),
    );
  }
  return out;
}

describe('closing a season during live ingest', () => {
  it('puts every result produced before the close into the final standings, and refuses one produced after', async () => {
    const closing = await createSeason(s, { name: 'closes under load', rankStyle: 'COMPETITION' });
    const other = await createSeason(s, { name: 'keeps running' });
    const input = generateResults(closing, { results: 15_000, players: 4_000, seed: 501, maxPoints: 30 });
    const noise = generateResults(other, { results: 15_000, players: 4_000, seed: 502 });
    await produceRaw(s.kafka, config.kafka.topic, toRecords(input.flatMap((m, i) => [m, noise[i]!])));

    const admin = s.kafka.admin();
    await admin.connect();
    try {
      const backlog = (await groupProgress(admin, config.kafka.groupId, config.kafka.topic)).reduce(
        (n, p) => n + p.end - Math.max(0, p.committed),
        0,
      );
      const report = await ingest.app.seasonJobs.close(closing.id, { actor: 'test', reason: 'close under load' });
      console.log(
        `[season close live] backlog at close ${backlog} messages; drain ${report.steps.drain} ms, ` +
          `finalize ${report.steps.finalize} ms, total ${report.durationMs} ms`,
      );
      expect(report).toMatchObject({ finalized: true });

      const [{ n }] = await s.pg.sql<
        [{ n: number }]
      >`select count(*)::int as n from match_results where season_id = ${closing.id}`;
      expect(n).toBe(input.length);
      expect(await finalBoards(closing)).toEqual(oracleBoards(closing, input));
      expect(await s.redis.keys(`lb:{s${closing.id}}*`)).toEqual([]);

      // Produced after the close, though its endedAt is inside the season: refused (DLQ), never applied.
      const late: MatchResultMessage = { ...input[0]!, matchId: randomUUID(), points: 29 };
      await produceRaw(s.kafka, config.kafka.topic, toRecords([late]));
      await waitFor(
        'the consumer to commit everything',
        () => caughtUp(admin, config.kafka.groupId, config.kafka.topic),
        60_000,
      );
      const [{ m }] = await s.pg.sql<
        [{ m: number }]
      >`select count(*)::int as m from match_results where season_id = ${late.seasonId} and match_id = ${late.matchId}`;
      expect(m).toBe(0);
      expect(await s.redis.keys(`lb:{s${closing.id}}*`)).toEqual([]);
    } finally {
      await admin.disconnect();
    }
  }, 120_000);
});
