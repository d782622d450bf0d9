// Runs once before the suite: the test database exists and is migrated, Kafka answers.
import net from 'node:net';
import { ensureDatabase } from '../../scripts/ensure-database.js';
import { migrateDatabase } from '../../src/postgres/client.js';
import { TEST_DATABASE_URL, TEST_KAFKA_BROKERS } from './env.js';

function reachable(hostPort: string): Promise<boolean> {
  const [host, port] = hostPort.split(':');
  return new Promise((resolve) => {
    const socket = net.connect({ host, port: Number(port) });
    socket.setTimeout(2_000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

export default async function setup(): Promise<void> {
  await ensureDatabase(TEST_DATABASE_URL);
  await migrateDatabase(TEST_DATABASE_URL);
  const broker = TEST_KAFKA_BROKERS.split(',')[0]!;
  if (!(await reachable(broker))) {
    throw new Error(`Kafka does not answer on ${broker}: run \`npm run stack:up\` first.`);
  }
}
