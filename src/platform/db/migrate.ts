import { Migrator } from 'kysely/migration';
import { migrationProvider } from '../../db/migrations/index.js';
import type { Db } from './database.js';

/** Brings the schema up to date; Kysely holds a lock so concurrent instances migrate once. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider: migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
