// Fault matrix 16 (docs/reliability.md#fault-matrix): three ingest processes in one group, one
// of them killed (SIGKILL or SIGTERM, seeded) and replaced every 10 s while results flow in,
// replays included: rebalance after rebalance, nothing lost, nothing counted twice.
import { afterAll, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import type { MatchResultMessage } from '../../src/domain/result-message.js';
import { expectBoardsMatchOracle, expectStoredOnce } from '../support/assert-boards.js';
import { testEnv } from '../support/env.js';
import { knob, printReport, sleep, startLadder, type LadderProcess } from '../support/faults.js';
import { generateResults, prng, toRecords, withReplays } from '../support/generate.js';
import {
  createSeason,
  createTopics,
  openServices,
  produceRaw,
  waitUntilCaughtUp,
  type Services,
} from '../support/services.js';

const consumers: LadderProcess[] = [];
let s: Services | undefined;

afterAll(async () => {
  await Promise.all(consumers.map((c) => c.kill()));
  await s?.close();
});

it('16. three consumers killed and restarted every 10 s (rebalance churn): nothing lost or double-counted', async () => {
  const env = testEnv({ LADDER_ROLES: 'ingest', KAFKA_SESSION_TIMEOUT_MS: '6000' });
  s = openServices(parseConfig(env));
  await createTopics(s.kafka, s.config);
  const season = await createSeason(s, { name: 'faults churn', scoring: 'SUM' });
  const seconds = knob('CHURN_S', 40);
  const every = knob('CHURN_EVERY_S', 10);
  const rate = knob('CHURN_RATE', 500);
  const all = generateResults(season, { results: seconds * rate, players: 2_000, seed: 16 });
  consumers.push(...(await Promise.all([0, 1, 2].map(() => startLadder(env)))));

  // Results go in a second's worth at a time, each sent 1-5 times, in any order.
  let produced = 0;
  let producing = true;
  const producer = (async () => {
    for (let i = 0; i < all.length && producing; i += rate) {
      const slice: MatchResultMessage[] = all.slice(i, i + rate);
      await produceRaw(s!.kafka, s!.config.kafka.topic, toRecords(withReplays(slice, i)));
      produced = i + slice.length;
      await sleep(1);
    }
  })();

  const rand = prng(1616);
  const kills: string[] = [];
  const started = Date.now();
  while (Date.now() - started < seconds * 1000) {
    await sleep(every);
    const i = Math.floor(rand() * consumers.length);
    const victim = consumers[i]!;
    const signal = rand() < 0.5 ? 'SIGKILL' : 'SIGTERM';
    if (signal === 'SIGKILL') await victim.kill();
    else await victim.stop(); // a process still starting exits 1 on SIGTERM: fine here
    kills.push(signal);
    consumers[i] = await startLadder(env, { wait: false });
  }
  producing = false;
  await producer;
  await waitUntilCaughtUp(s, 'the group to commit everything', 180_000);
  printReport('16 consumer churn', { results: produced, kills, seconds });

  const input = all.slice(0, produced).map((m) => ({ ...m, endedAt: new Date(m.endedAt) }));
  await expectStoredOnce(s, season.id, produced);
  await expectBoardsMatchOracle(s, season, input);
}, 600_000);
