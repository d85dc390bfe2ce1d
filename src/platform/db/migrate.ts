import { sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { migrationProvider } from '../../db/migrations/index.js';
import type { Db } from './database.js';

/**
 * Which of this code's migrations the database has not applied (all, without a migration table), and
 * whether it has applied exactly this code's migrations (one it does not know is the migrator's to refuse).
 */
export async function migrationState(db: Db): Promise<{ applied: number; pending: string[]; current: boolean }> {
  const known = Object.keys(await migrationProvider.getMigrations());
  let names: Set<string>;
  try {
    names = new Set(
      (await sql<{ name: string }>`select name from kysely_migration`.execute(db)).rows.map((r) => r.name),
    );
  } catch {
    return { applied: 0, pending: known, current: false }; // no migration table yet
  }
  const pending = known.filter((n) => !names.has(n));
  return { applied: names.size, pending, current: pending.length === 0 && names.size === known.length };
}

/** Called before migrations are applied to a database that already holds data of an earlier version. */
export type BeforeMigrating = (pending: string[]) => Promise<void>;

/**
 * Brings the schema up to date; Kysely holds a lock so concurrent instances migrate once. The usual
 * start (nothing to do) answers from one query instead of the migrator's lock-and-compare round trips.
 */
export async function migrateToLatest(db: Db, beforeMigrating?: BeforeMigrating): Promise<string[]> {
  const { applied, pending, current } = await migrationState(db);
  if (current) return [];
  if (beforeMigrating && applied > 0 && pending.length > 0) await beforeMigrating(pending);
  const migrator = new Migrator({ db, provider: migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
