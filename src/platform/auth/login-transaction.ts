import { inTransaction } from '../db/transaction.js';
import type { IssuedTokens, TokenService } from './tokens.js';
import type { Db } from '../db/database.js';
import type { Executor } from '../db/executor.js';
import { AppError } from '../errors.js';
import type { Account, AccountKind, Channel, RequestContext } from '../http/context.js';
import { recordLogin } from '../oplog/oplog.js';
import { accountDisabled, badCredentials } from './login-errors.js';
import { stillItsPassword } from './password-login.js';
import { rememberLogin } from './session-answer.js';

/** What a kind of password account (staff, verifier, bank user) logs in as. */
export interface PasswordAccountKind {
  kind: AccountKind;
  channel: Channel;
  /**
   * Stamps the login on the account's row and, when given, stores the re-hashed password: a write of
   * the table's owning module (docs/architecture.md §4), handed in by the module that logs it in.
   */
  stamp: (trx: Executor, id: number, login: { ip: string; at: Date; newHash: string | null }) => Promise<void>;
  /**
   * Locks the account row and what its session is built from (merchant, roles); answers the password
   * hash read under that lock, null when the row is gone.
   */
  lock: (trx: Executor, id: number) => Promise<{ passwordHash: string } | null>;
  /** The session account, null when it may not log in now (disabled, deleted, merchant disabled). */
  load: (trx: Executor, id: number) => Promise<Account | null>;
}

export interface PasswordLogin {
  ctx: RequestContext;
  /** the account checkPasswordLogin accepted, with the hash it checked, and the argon2 hash it made of a bcrypt one */
  checked: { id: number; passwordHash: string };
  newHash: string | null;
  password: string;
  /** login_log's name for the successful login */
  username: string;
  /** the login's own writes, in its transaction after the last-login stamp (at is that stamp) */
  recordAlso?: (trx: Executor, account: Account, at: Date) => Promise<void>;
  /** logs the failed login and throws its error */
  refuse: (error: AppError) => Promise<never>;
}

/**
 * The transaction every password login ends with, once checkPasswordLogin has accepted the password:
 * the session's token is issued under locks on what the session is built from, and cached only after
 * the commit (docs/adr/0032-a-login-locks-what-its-session-is-built-from.md: a disable, delete or new password racing the login either
 * waits for it and then revokes its token, or commits first and the login sees it).
 */
export async function openPasswordSession(
  deps: { db: Db; tokens: TokenService },
  of: PasswordAccountKind,
  login: PasswordLogin,
): Promise<{ issued: IssuedTokens; account: Account }> {
  const { ctx, checked } = login;
  const session = await inTransaction(deps.db, async (trx) => {
    const locked = await of.lock(trx, checked.id);
    if (locked && !(await stillItsPassword(locked.passwordHash, checked.passwordHash, login.password)))
      return badCredentials();
    const account = await of.load(trx, checked.id);
    // Disabled or deleted since the password check, or its merchant is: refused below, and logged like
    // a disabled account, once this transaction (which wrote nothing) has ended.
    if (!account) return accountDisabled();
    const at = new Date();
    await of.stamp(trx, checked.id, { ip: ctx.ip, at, newHash: login.newHash });
    await login.recordAlso?.(trx, account, at);
    const issued = await deps.tokens.issue(trx, account, of.channel, ctx.ip);
    await recordLogin(trx, ctx, {
      accountKind: of.kind,
      accountId: checked.id,
      username: login.username,
      success: true,
      errcode: 0,
      message: null,
    });
    return { issued, account };
  });
  if (session instanceof AppError) return login.refuse(session);
  const lost = await rememberLogin(deps.tokens, session.issued, session.account, of.channel);
  if (lost) return login.refuse(lost);
  return session;
}
