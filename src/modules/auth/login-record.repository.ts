import type { Executor } from '../../platform/db/executor.js';

/** Accounts that log in with a password and carry the last-login columns. */
export type PasswordAccountTable = 'admin_user' | 'checker' | 'bank_user';

/** Stamps the login and, when given, stores the re-hashed password. */
export async function recordSuccessfulLogin(db: Executor, table: PasswordAccountTable, id: number, ip: string, at: Date, newHash: string | null): Promise<void> {
  // Both tables share these columns; Kysely's types are given the first so the update type-checks.
  await db
    .updateTable(table as 'admin_user')
    .set({
      last_login_at: at,
      last_login_ip: ip.slice(0, 64),
      ...(newHash ? { password_hash: newHash } : {}),
    })
    .where('id', '=', id)
    .execute();
}
