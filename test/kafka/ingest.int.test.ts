import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectBoardsMatchOracle, expectStoredOnce } from '../support/assert-boards.js';
import { testConfig } from '../support/env.js';
import { generateResults, toRecords, withReplays } from '../support/generate.js';
import { createSeason, produceRaw, waitUntilCaughtUp, startIngest, type Services } from '../support/services.js';

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

describe('the ingest consumer', () => {
  it('stores each of 10,000 results exactly once and builds every board like the oracle, for BEST, ASC and SUM seasons, despite 1-5 shuffled replays', async () => {
    const best = await createSeason(s, { name: 'best' });
    const asc = await createSeason(s, { name: 'asc time trial', order: 'ASC', rankStyle: 'COMPETITION' });
    const sum = await createSeason(s, { name: 'sum', scoring: 'SUM' });
    const inputs = new Map(
      [best, asc, sum].map((season, i) => [
        season,
        generateResults(season, { results: 10_000, players: 1_000, seed: 11 + i }),
      ]),
    );
    const stream = withReplays([...inputs.values()].flat(), 7);
    await produceRaw(s.kafka, config.kafka.topic, toRecords(stream));

    await waitUntilCaughtUp(s, 'the consumer to commit every message', 120_000);

    for (const [season, input] of inputs) {
      await expectStoredOnce(s, season.id, 10_000);
      await expectBoardsMatchOracle(
        s,
        season,
        input.map((m) => ({ ...m, endedAt: new Date(m.endedAt) })),
      );
    }
  });
});
