import { hashPassword, verifyAgainstDummy, verifyPassword, type PasswordCheck } from './password.js';
import { AppError } from '../errors.js';
import { accountDisabled } from './login-errors.js';
import type { LoginGuard } from './login-guard.js';

export interface PasswordCredentials {
  id: number;
  passwordHash: string;
  status: number;
}

/**
 * The checks every password login makes, in an order that leaks nothing: the lock-out is asked first
 * and the attempt counted (login-guard.ts), then the password is checked, against a dummy hash when
 * the name is unknown so that costs the same; a failure is counted the same way whether the name exists or not; "disabled"
 * is told only to someone who knows the password. Answers the account and, for an old bcrypt hash,
 * its argon2 hash.
 */
export async function checkPasswordLogin<C extends PasswordCredentials>(opts: {
  guard: LoginGuard;
  name: string;
  ip: string;
  found: C | null;
  password: string;
  refuse: (accountId: number | null, error: AppError) => Promise<never>;
}): Promise<{ account: C; newHash: string | null }> {
  const { found: account, password, refuse } = opts;
  const accountId = account?.id ?? null;
  let ticket;
  try {
    ticket = await opts.guard.admit(opts.name, opts.ip);
  } catch (err) {
    if (err instanceof AppError) return refuse(accountId, err);
    throw err;
  }
  let check: PasswordCheck = { ok: false, needsRehash: false };
  if (account) check = await verifyPassword(account.passwordHash, password);
  else await verifyAgainstDummy(password);
  if (!account || !check.ok) return refuse(accountId, await ticket.failed());
  try {
    await ticket.passwordAccepted();
  } catch (err) {
    if (err instanceof AppError) return refuse(account.id, err);
    throw err;
  }
  if (account.status !== 1) return refuse(account.id, accountDisabled());
  await ticket.succeeded();
  return { account, newHash: check.needsRehash ? await hashPassword(password) : null };
}

/**
 * Whether the password checked before the login transaction is still the account's, by the hash read
 * under the row lock: a new password committed meanwhile refuses it. A hash that changed only because
 * a concurrent login of the same password upgraded it from bcrypt is checked again.
 */
export async function stillItsPassword(lockedHash: string, checkedHash: string, password: string): Promise<boolean> {
  return lockedHash === checkedHash || (await verifyPassword(lockedHash, password)).ok;
}
