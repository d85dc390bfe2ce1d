import { sql } from 'kysely';
import type { Executor } from '../../platform/db/executor.js';

/** Accounts that log in with a password and carry the lock-out columns. */
export type LockableTable = 'admin_user' | 'checker';

/**
 * Counts one failed login atomically; the failure that reaches the limit locks the account and
 * restarts the count. Answers whether this failure locked it.
 */
export async function registerFailedLogin(db: Executor, table: LockableTable, id: number, maxFailures: number, lockUntil: Date): Promise<boolean> {
  // Both tables share these columns; Kysely's types are given the first so the update type-checks.
  const r = await db
    .updateTable(table as 'admin_user')
    .set({
      failed_login_count: sql<number>`case when failed_login_count + 1 >= ${maxFailures} then 0 else failed_login_count + 1 end`,
      locked_until: sql<Date | null>`case when failed_login_count + 1 >= ${maxFailures} then ${lockUntil}::timestamptz else locked_until end`,
    })
    .where('id', '=', id)
    .returning(['locked_until'])
    .executeTakeFirst();
  return r?.locked_until?.getTime() === lockUntil.getTime();
}

/** Clears the failures, stamps the login and, when given, stores the re-hashed password. */
export async function recordSuccessfulLogin(db: Executor, table: LockableTable, id: number, ip: string, at: Date, newHash: string | null): Promise<void> {
  await db
    .updateTable(table as 'admin_user')
    .set({
      failed_login_count: 0,
      locked_until: null,
      last_login_at: at,
      last_login_ip: ip.slice(0, 64),
      ...(newHash ? { password_hash: newHash } : {}),
    })
    .where('id', '=', id)
    .execute();
}
