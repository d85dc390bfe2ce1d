import { loadConfig } from '../src/config.js';
import { buildApp } from '../src/app.js';
import { openDatabase } from '../src/platform/db/database.js';
import { createMemoryStore } from '../src/platform/store/memory-store.js';
import { openApiDocument } from '../src/platform/openapi/register.js';

/**
 * The OpenAPI document as the service publishes it, built without opening a database: the pool below
 * connects only on a query, and building the app runs none.
 */
export async function documentWithoutDatabase(): Promise<Record<string, unknown>> {
  const config = loadConfig({ ...process.env, DATABASE_URL: 'postgres://openapi.invalid/none', REDIS_URL: '' });
  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, tz: config.tz });
  const app = await buildApp({ config, database, store: createMemoryStore(), logger: false });
  try {
    await app.ready();
    return openApiDocument(app);
  } finally {
    await app.close();
    await database.close();
  }
}
