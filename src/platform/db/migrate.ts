import { sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { migrationProvider } from '../../db/migrations/index.js';
import type { Db } from './database.js';

/** True when the database has applied exactly the migrations this code knows. */
async function upToDate(db: Db): Promise<boolean> {
  try {
    const applied = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    const known = Object.keys(await migrationProvider.getMigrations());
    const names = new Set(applied.rows.map((r) => r.name));
    return names.size === known.length && known.every((n) => names.has(n));
  } catch {
    return false; // no migration table yet
  }
}

/**
 * Brings the schema up to date; Kysely holds a lock so concurrent instances migrate once. The usual
 * start (nothing to do) answers from one query instead of the migrator's lock-and-compare round trips.
 */
export async function migrateToLatest(db: Db): Promise<string[]> {
  if (await upToDate(db)) return [];
  const migrator = new Migrator({ db, provider: migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
