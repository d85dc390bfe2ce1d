import { sql } from 'kysely';
import type { Db } from '../platform/db/database.js';
import { migrateToLatest, type BeforeMigrating } from '../platform/db/migrate.js';
import { seedReferenceData, type SeedOptions, type SeedOutcome } from './reference.js';

// Arbitrary, fixed: the key of the session advisory lock that start-ups take in turn.
const PREPARE_LOCK_KEY = 7_316_000_001;

/**
 * Migrations, then reference data, holding a session advisory lock on one connection throughout, so
 * any number of instances may start together on an empty database: the first prepares it, the others
 * wait and then find nothing left to do. (Each step's own checks, "is the region table empty?", are
 * not enough on their own: two transactions both see it empty and both insert.) A process that dies
 * holding the lock loses its connection, and the lock with it.
 */
export async function prepareDatabase(
  db: Db,
  seed: SeedOptions,
  beforeMigrating?: BeforeMigrating,
): Promise<SeedOutcome & { migrations: string[] }> {
  return db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${PREPARE_LOCK_KEY})`.execute(conn);
    try {
      const migrations = await migrateToLatest(conn, beforeMigrating);
      return { ...(await seedReferenceData(conn, seed)), migrations };
    } finally {
      await sql`select pg_advisory_unlock(${PREPARE_LOCK_KEY})`.execute(conn);
    }
  });
}
