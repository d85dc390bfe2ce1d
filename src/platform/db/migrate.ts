import { sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { migrationProvider } from '../../db/migrations/index.js';
import type { Db } from './database.js';

/** How many of this code's migrations the database has applied, and which it has not (all, without a migration table). */
export async function migrationState(db: Db): Promise<{ applied: number; pending: string[] }> {
  const known = Object.keys(await migrationProvider.getMigrations());
  let names: Set<string>;
  try {
    names = new Set((await sql<{ name: string }>`select name from kysely_migration`.execute(db)).rows.map((r) => r.name));
  } catch {
    return { applied: 0, pending: known }; // no migration table yet
  }
  return { applied: names.size, pending: known.filter((n) => !names.has(n)) };
}

/** Called before migrations are applied to a database that already holds data of an earlier version. */
export type BeforeMigrating = (pending: string[]) => Promise<void>;

/**
 * Brings the schema up to date; Kysely holds a lock so concurrent instances migrate once. The usual
 * start (nothing to do) answers from one query instead of the migrator's lock-and-compare round trips.
 */
export async function migrateToLatest(db: Db, beforeMigrating?: BeforeMigrating): Promise<string[]> {
  const { applied, pending } = await migrationState(db);
  // Up to date: exactly the migrations this code knows (one it does not know is the migrator's to refuse).
  if (pending.length === 0 && applied === Object.keys(await migrationProvider.getMigrations()).length) return [];
  if (beforeMigrating && applied > 0 && pending.length > 0) await beforeMigrating(pending);
  const migrator = new Migrator({ db, provider: migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
