import { buildApp } from './app.js';
import { loadConfig } from './config.js';

const config = loadConfig();
const app = buildApp(config, { roles: config.roles });

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  app.logger.info({ signal }, 'shutting down');
  const force = setTimeout(() => process.exit(1), 30_000);
  force.unref();
  await app.stop();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

await app.start().catch((err: unknown) => {
  app.logger.fatal({ err }, 'failed to start');
  process.exit(1);
});
