import { rmSync } from 'node:fs';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { TEST_TZ } from './test-env.js';

// Test files import this from here; it lives in test-env.ts, which loads nothing.
export { adminUrl } from './test-env.js';

/**
 * Gives each run the migrated and seeded database its test files start from (template-build.ts): a
 * dumped PGlite data directory (a file loads it in a fraction of a fresh initdb and migration), or a
 * PostgreSQL template database each file copies. Both are built once per change of what decides their
 * rows and reused by later runs (template-cache.ts).
 */
export default async function setup(project: TestProject) {
  process.env.TZ = TEST_TZ;
  // Vitest runs this once per project: each gets names of its own.
  const runId = `${process.env.TEST_RUN_ID || `${process.pid}_${Date.now()}`}_${project.name}`;
  project.provide('runId', runId);
  // Loaded here, not at the top: test files import adminUrl from this module.
  const [cache, build, { deleteRedisKeys }] = await Promise.all([
    import('./template-cache.js'),
    import('./template-build.js'),
    import('./redis-keys.js'),
  ]);
  const key = await cache.templateKey();
  const url = process.env.DATABASE_URL || null;
  if (!url) {
    const file = await cache.pgliteSnapshot(key, runId, build.buildPgliteSnapshot);
    project.provide('pgliteSnapshot', file);
    project.provide('pgTemplate', '');
    return async () => {
      rmSync(file, { force: true });
      // test-app and testStorePrefix put every key of the run under test:<runId>:
      await deleteRedisKeys(process.env.REDIS_URL, `test:${runId}:`);
    };
  }
  const template = await cache.postgresTemplate(url, key, build.seedPostgresTemplate);
  project.provide('pgliteSnapshot', '');
  project.provide('pgTemplate', template);
  return async () => {
    // The template stays for later runs; the files' own databases go (those of a failed close too).
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const rows = await admin.query<{ datname: string }>(`select datname from pg_database where datname like $1`, [
        `tc\\_t\\_${runId.replace(/_/g, '\\_')}\\_%`,
      ]);
      for (const r of rows.rows)
        await admin.query(`drop database if exists ${pg.escapeIdentifier(r.datname)} with (force)`);
    } finally {
      await admin.end();
    }
    await deleteRedisKeys(process.env.REDIS_URL, `test:${runId}:`);
  };
}
