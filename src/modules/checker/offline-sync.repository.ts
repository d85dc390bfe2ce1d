import { sql } from 'kysely';
import type { Db } from '../../platform/db/database.js';

/**
 * The commits of an offline upload (docs/adr/0106-offline-upload-judged-scan-by-scan.md): each scan
 * commits on its own, without waiting for the WAL flush, and the request waits for one flush before
 * it answers, so every scan answered is on disk and an unanswered one may be sent again.
 */

/**
 * Runs `work` on one pooled connection whose commits do not wait for the WAL flush; the setting is
 * put back before the connection returns to the pool.
 */
export async function withUnflushedCommits<T>(db: Db, work: (conn: Db) => Promise<T>): Promise<T> {
  return db.connection().execute(async (conn) => {
    await sql`set synchronous_commit = off`.execute(conn);
    try {
      return await work(conn);
    } finally {
      await sql`reset synchronous_commit`.execute(conn);
    }
  });
}

/**
 * Returns once every commit made before it, on any connection, is flushed: a transaction that takes
 * an id commits with a record of its own and, committing synchronously, waits for the WAL up to it.
 */
export async function awaitCommitsFlushed(db: Db): Promise<void> {
  await sql`select pg_current_xact_id()`.execute(db);
}
