// A second ingest instance joining the group, then leaving, makes the first one rebalance twice:
// normal operation, which must not be logged at error level (issue 13).
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app/app.js';
import { testConfig } from '../support/env.js';
import { createTopics, openServices, waitFor } from '../support/services.js';

const config = testConfig({ KAFKA_SESSION_TIMEOUT_MS: '6000', LOG_LEVEL: 'info' });
const logs: Array<{ level: number; msg: string; component?: string; error?: string }> = [];
const logger = pino(
  { level: 'debug' },
  new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(JSON.parse(chunk.toString()));
      done();
    },
  }),
);
const apps: App[] = [];
afterAll(async () => {
  for (const app of apps) await app.stop().catch(() => {});
});

it('logs a rebalance while another instance joins and leaves below error level', async () => {
  const s = openServices(config);
  try {
    await createTopics(s.kafka, config);
  } finally {
    await s.close();
  }
  const start = async (name: string) => {
    const app = buildApp(config, { roles: ['ingest'], logger: logger.child({ instance: name }) });
    apps.push(app);
    await app.start();
    await waitFor(`${name} in the group`, async () => app.ingest!.readiness().ok, 30_000);
    return app;
  };
  const first = await start('first');
  const second = await start('second');
  // The first instance hears of the rebalance at its next heartbeat or fetch.
  await waitFor(
    'the first instance to rejoin',
    async () => logs.some((l) => /rebalanc/i.test(`${l.msg} ${l.error ?? ''}`)),
    20_000,
  );
  await second.stop();
  apps.splice(apps.indexOf(second), 1);
  await new Promise((r) => setTimeout(r, 2_000));
  await waitFor('the first instance to be ready alone', async () => first.ingest!.readiness().ok, 30_000);

  const rebalances = logs.filter((l) => /rebalanc/i.test(`${l.msg} ${l.error ?? ''}`));
  expect(rebalances.length).toBeGreaterThan(0);
  expect(rebalances.every((l) => l.level <= 30)).toBe(true);
  expect(logs.filter((l) => l.level >= 50)).toEqual([]);
}, 90_000);
