import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { seedReferenceData } from '../../src/seed/reference.js';
import { TEST_ADMIN, TEST_TZ } from './test-env.js';

/**
 * What every test database starts from: the migrated schema and the reference data. This module and
 * everything it imports decide those rows, so its import closure is the cache key of the built
 * template (template-cache.ts): keep here, and in what it imports, all that decides them.
 */
async function migrateAndSeed(database: Database): Promise<void> {
  await migrateToLatest(database.db);
  await seedReferenceData(database.db, {
    adminUsername: TEST_ADMIN.username,
    adminPassword: TEST_ADMIN.password,
    openApp: null,
  });
}

/** A migrated and seeded in-memory PGlite, dumped (tar): each test file starts from a copy. */
export async function buildPgliteSnapshot(scratchDir: string): Promise<Uint8Array> {
  const database = openDatabase({ databaseUrl: null, dataDir: scratchDir, tz: TEST_TZ, inMemory: true });
  try {
    await migrateAndSeed(database);
    return new Uint8Array(await (await database.dump!()).arrayBuffer());
  } finally {
    await database.close();
  }
}

/** Migrates and seeds the (empty) PostgreSQL database at `url`, a template for the test databases. */
export async function seedPostgresTemplate(url: string, scratchDir: string): Promise<void> {
  const database = openDatabase({ databaseUrl: url, dataDir: scratchDir, tz: TEST_TZ });
  try {
    await migrateAndSeed(database);
  } finally {
    await database.close();
  }
}
