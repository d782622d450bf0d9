// Applies the drizzle/ migrations to DATABASE_URL (creating the database if it is missing).
import { loadConfig } from '../src/config.js';
import { ensureDatabase } from './ensure-database.js';
import { migrateDatabase } from '../src/postgres/client.js';

const config = loadConfig();
await ensureDatabase(config.databaseUrl);
await migrateDatabase(config.databaseUrl);
console.log(`migrated ${new URL(config.databaseUrl).pathname.slice(1)}`);
