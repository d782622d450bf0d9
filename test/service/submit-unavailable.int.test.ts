import net from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafka } from '../../src/kafka/client.js';
import { createResultProducer } from '../../src/kafka/producer.js';
import { createLogger } from '../../src/logger.js';
import { createPlayersRepo } from '../../src/postgres/players-repo.js';
import { submitMatchResult } from '../../src/service/submit-match-result.js';
import { testConfig } from '../support/env.js';
import { createSeason, openServices, type Services } from '../support/services.js';

let s: Services;
let deadPort: number;

beforeAll(async () => {
  s = openServices(testConfig());
  // A port that was just free: nothing listens there, so every connection is refused.
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  deadPort = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
});
afterAll(async () => {
  await s?.close();
});

describe('a submission while Kafka is unreachable', () => {
  it('answers UNAVAILABLE, never a silent accept, and stores nothing', async () => {
    const season = await createSeason(s, { name: 'kafka down' });
    const kafka = createKafka({
      brokers: [`127.0.0.1:${deadPort}`],
      clientId: 'ladder-test',
      logger: createLogger('silent'),
    });
    const producer = createResultProducer(kafka, 'match-results-unreachable');
    const matchId = randomUUID();
    const attempt = submitMatchResult(
      {
        seasonById: async () => season,
        queue: producer,
        names: createPlayersRepo(s.pg.db),
        now: () => new Date(),
        skewMs: 60_000,
        sendTimeoutMs: 1_500,
      },
      {
        matchId,
        seasonIds: [season.id],
        endedAt: new Date(Date.now() - 60_000),
        results: [{ playerId: '5', points: 3, displayName: 'Zed' }],
      },
    );
    await expect(attempt).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    const [row] = await s.pg
      .sql`select count(*)::int as n from match_results where season_id = ${season.id} and match_id = ${matchId}`;
    expect(row!.n).toBe(0);
    await producer.stop().catch(() => {});
  });
});
