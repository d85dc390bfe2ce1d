import { hashPassword, verifyAgainstDummy, verifyPassword } from '../../platform/auth/password.js';
import type { Db } from '../../platform/db/database.js';
import type { AppError } from '../../platform/errors.js';
import { accountDisabled, accountLocked, badCredentials } from './auth.errors.js';
import { lockDeadline, MAX_FAILED_LOGINS } from './login-guard.js';
import { registerFailedLogin, type LockableTable } from './login-lock.repository.js';

export interface PasswordCredentials {
  id: number;
  passwordHash: string;
  status: number;
  lockedUntil: Date | null;
}

/**
 * The checks every password login makes, in an order that leaks nothing: an unknown account costs
 * the time of a real check and answers like a wrong password; a locked account is refused even the
 * right password; the failure that reaches the limit locks it (423); "disabled" is told only to
 * someone who knows the password. Answers the account and, for an old bcrypt hash, its argon2 hash.
 */
export async function checkPasswordLogin<C extends PasswordCredentials>(opts: {
  db: Db;
  table: LockableTable;
  found: C | null;
  password: string;
  refuse: (accountId: number | null, error: AppError) => Promise<never>;
}): Promise<{ account: C; newHash: string | null }> {
  const { found: account, password, refuse } = opts;
  if (!account) {
    await verifyAgainstDummy(password);
    return refuse(null, badCredentials());
  }
  if (account.lockedUntil && account.lockedUntil.getTime() > Date.now()) {
    return refuse(account.id, accountLocked(account.lockedUntil));
  }
  const check = await verifyPassword(account.passwordHash, password);
  if (!check.ok) {
    const until = lockDeadline();
    const locked = await registerFailedLogin(opts.db, opts.table, account.id, MAX_FAILED_LOGINS, until);
    return refuse(account.id, locked ? accountLocked(until) : badCredentials());
  }
  if (account.status !== 1) return refuse(account.id, accountDisabled());
  return { account, newHash: check.needsRehash ? await hashPassword(password) : null };
}
