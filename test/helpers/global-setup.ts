import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { seedReferenceData } from '../../src/seed/reference.js';
import { deleteRedisKeys } from './redis-keys.js';
import { TEST_ADMIN, TEST_TZ } from './test-env.js';

const cacheDir = path.resolve('.test-cache');

async function seed(db: ReturnType<typeof openDatabase>) {
  await migrateToLatest(db.db);
  await seedReferenceData(db.db, { adminUsername: TEST_ADMIN.username, adminPassword: TEST_ADMIN.password, openApp: null });
}

export function adminUrl(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = '/' + database;
  return u.toString();
}

/**
 * Migrates and seeds once per run; each test file then starts from a copy: a dumped PGlite data
 * directory (loading it takes a fraction of a fresh initdb), or a PostgreSQL template database.
 */
export default async function setup(project: TestProject) {
  process.env.TZ = TEST_TZ;
  // Vitest runs this once per project (app, process): each gets names of its own.
  const runId = `${process.env.TEST_RUN_ID || `${process.pid}_${Date.now()}`}_${project.name}`;
  project.provide('runId', runId);
  const url = process.env.DATABASE_URL || null;
  if (!url) {
    mkdirSync(cacheDir, { recursive: true });
    const database = openDatabase({ databaseUrl: null, dataDir: cacheDir, tz: TEST_TZ, inMemory: true });
    await seed(database);
    const file = path.join(cacheDir, `snapshot-${runId}.tar`);
    const dump = await database.dump!();
    writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
    await database.close();
    project.provide('pgliteSnapshot', file);
    project.provide('pgTemplate', '');
    return async () => {
      rmSync(file, { force: true });
      // test-app and testStorePrefix put every key of the run under test:<runId>:
      await deleteRedisKeys(process.env.REDIS_URL, `test:${runId}:`);
    };
  }
  const template = `tc_tpl_${runId}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${template}`);
  const database = openDatabase({ databaseUrl: adminUrl(url, template), dataDir: cacheDir, tz: TEST_TZ });
  await seed(database);
  await database.close();
  project.provide('pgliteSnapshot', '');
  project.provide('pgTemplate', template);
  return async () => {
    const rows = await admin.query(`select datname from pg_database where datname like $1 or datname = $2`, [`tc_t_${runId}_%`, template]);
    for (const r of rows.rows) await admin.query(`drop database if exists ${r.datname} with (force)`);
    await admin.end();
    await deleteRedisKeys(process.env.REDIS_URL, `test:${runId}:`);
  };
}
