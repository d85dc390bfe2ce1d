import { loadConfig } from '../src/config.js';
import { buildApp } from '../src/app.js';
import { openDatabase } from '../src/platform/db/database.js';
import { createMemoryStore } from '../src/platform/store/memory-store.js';
import { openApiDocument } from '../src/platform/openapi.js';

// Prints the OpenAPI document without opening a database: the pool below connects only on a query,
// and building the app runs none.
const config = loadConfig({ ...process.env, DATABASE_URL: 'postgres://openapi.invalid/none', REDIS_URL: '' });
const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, tz: config.tz });
const store = createMemoryStore();
const app = await buildApp({ config, database, store, logger: false });
await app.ready();
process.stdout.write(JSON.stringify(openApiDocument(app), null, 2) + '\n');
await app.close();
await database.close();
