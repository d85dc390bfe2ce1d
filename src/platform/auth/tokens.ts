import type { Db } from '../db/database.js';
import { advisoryLock, advisoryLocks, inTransaction, type Trx } from '../db/transaction.js';
import type { Executor } from '../db/executor.js';
import type { Store } from '../store/store.js';
import { unauthorized } from '../errors.js';
import type { Account, AccountKind, Channel } from '../http/context.js';
import { SESSION_DROP_CHANNEL, type LocalSessions } from './local-sessions.js';
import { hashToken, newSessionId, newToken } from './token-codec.js';
import * as tokenRepo from './token.repository.js';

/** Reads an account afresh from the database (a session lost from the store is rebuilt from it). */
export type AccountLoader = (db: Executor, id: number) => Promise<Account | null>;

export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  accessHash: string;
  sessionId: string;
  expiresTime: Date;
}

export interface Session {
  account: Account;
  channel: Channel;
  /** stays the same across refreshes: the key of per-session values */
  sessionId: string;
  /** ms since the epoch */
  expiresAt: number;
}

const sessionKey = (hash: string) => `sess:${hash}`;
/** The account-tokens lock's key: refresh, issueCurrent and revocation of an account serialise on it. */
const accountKey = (kind: string, accountId: number) => `${kind}:${accountId}`;
/**
 * Accounts revoked per transaction: each holds an advisory lock until its commit, and PostgreSQL's lock
 * table (64 × max_connections entries by default, shared by every session) must not run out.
 */
const REVOKE_BATCH = 200;

/**
 * Access and refresh tokens (docs/architecture.md §5.3). The database holds the token hashes and is the truth;
 * the store holds the session keyed by the access-token hash, so a request is authenticated without
 * touching the database, and a session the store lost is rebuilt from the database.
 */
export class TokenService {
  private readonly loaders = new Map<AccountKind, AccountLoader>();

  constructor(
    private readonly db: Db,
    private readonly store: Store,
    private readonly ttl: { accessS: number; refreshS: number },
    /** sessions kept parsed in this process (SESSION_LOCAL_TTL_S); null asks the store every time */
    private readonly local: LocalSessions | null = null,
  ) {}

  registerLoader(kind: AccountKind, loader: AccountLoader): void {
    this.loaders.set(kind, loader);
  }

  /**
   * Writes the token row inside the caller's transaction; call `remember` once it has committed.
   * A login starts a new session; a refresh passes the session id on.
   */
  async issue(
    trx: Executor,
    account: Account,
    channel: Channel,
    clientIp: string | null,
    sessionId = newSessionId(),
  ): Promise<IssuedTokens> {
    const accessToken = newToken();
    const refreshToken = newToken();
    const now = Date.now();
    const accessExpiresAt = new Date(now + this.ttl.accessS * 1000);
    const accessHash = hashToken(accessToken);
    await tokenRepo.insertToken(trx, {
      accessHash,
      refreshHash: hashToken(refreshToken),
      accountId: account.id,
      accountKind: account.kind,
      channel,
      accessExpiresAt,
      refreshExpiresAt: new Date(now + this.ttl.refreshS * 1000),
      clientIp,
      sessionId,
    });
    return { accessToken, refreshToken, accessHash, sessionId, expiresTime: accessExpiresAt };
  }

  /**
   * Issues tokens for an account as it is now, read under the lock a revocation of it takes (as a
   * refresh does): a disable committed before is seen (null, nothing written), and one committing
   * after waits for this transaction and then deletes the new row too. For logins that found the
   * account outside their transaction.
   */
  async issueCurrent(
    trx: Trx,
    kind: AccountKind,
    accountId: number,
    channel: Channel,
    clientIp: string | null,
  ): Promise<{ issued: IssuedTokens; account: Account } | null> {
    await advisoryLock(trx, 'account-tokens', accountKey(kind, accountId));
    const loader = this.loaders.get(kind);
    const account = loader ? await loader(trx, accountId) : null;
    return account ? { issued: await this.issue(trx, account, channel, clientIp), account } : null;
  }

  /**
   * Caches the session of tokens just issued (their row committed). False, with nothing cached, when
   * a revocation of the account deleted the row in between: it cleared the store before this cached.
   */
  async remember(issued: IssuedTokens, account: Account, channel: Channel): Promise<boolean> {
    return this.cacheWhileIssued(issued.accessHash, {
      account,
      channel,
      sessionId: issued.sessionId,
      expiresAt: issued.expiresTime.getTime(),
    });
  }

  /** The session of an access token, or null when the token is unknown, revoked or expired. */
  async resolve(accessHash: string): Promise<Session | null> {
    const local = this.local?.get(accessHash, Date.now());
    if (local) return local;
    const mark = this.local?.mark() ?? 0;
    const session = await this.resolveShared(accessHash);
    return session && this.local ? this.local.keep(accessHash, session, mark) : session;
  }

  private async resolveShared(accessHash: string): Promise<Session | null> {
    const cached = await this.store.get(sessionKey(accessHash));
    const now = Date.now();
    if (cached) {
      const session = JSON.parse(cached) as Session;
      return session.expiresAt > now ? session : null;
    }
    const row = await tokenRepo.findByAccessHash(this.db, accessHash);
    if (!row || row.accessExpiresAt.getTime() <= now) return null;
    const loader = this.loaders.get(row.accountKind as AccountKind);
    const account = loader ? await loader(this.db, row.accountId) : null;
    if (!account) return null;
    const session: Session = {
      account,
      channel: row.channel as Channel,
      sessionId: row.sessionId ?? accessHash,
      expiresAt: row.accessExpiresAt.getTime(),
    };
    return (await this.cacheWhileIssued(accessHash, session)) ? session : null;
  }

  /**
   * Rotates both tokens: the old pair is deleted in the same statement that finds it, so a refresh
   * token works once. The account is re-read, so a disabled account cannot refresh.
   */
  async refresh(
    refreshToken: string,
    channel: Channel,
    clientIp: string | null,
  ): Promise<{ issued: IssuedTokens; account: Account }> {
    const refreshHash = hashToken(refreshToken);
    const result = await inTransaction(this.db, async (trx) => {
      const owner = await tokenRepo.findOwnerByRefreshHash(trx, refreshHash);
      if (!owner) return null;
      // Before the row is taken and the account read, as a revocation takes the lock before it deletes
      // (taking the row first deadlocked with it): a revocation of the account waits for this refresh
      // to commit and then deletes the new row too, or ran first, and the row is gone or the loader
      // sees the change. A token row never changes account, so the owner read unlocked is the row's.
      await advisoryLock(trx, 'account-tokens', accountKey(owner.accountKind, owner.accountId));
      const old = await tokenRepo.takeByRefreshHash(trx, refreshHash);
      // Thrown, not returned: the rollback keeps the pair of its own channel, which a call on a
      // wrong prefix must not spend.
      if (old && old.channel !== channel) throw unauthorized('the refresh token is invalid or has expired');
      if (!old || old.refreshExpiresAt.getTime() <= Date.now()) return null;
      const loader = this.loaders.get(old.accountKind as AccountKind);
      const account = loader ? await loader(trx, old.accountId) : null;
      if (!account) return null;
      const issued = await this.issue(trx, account, channel, clientIp, old.sessionId ?? old.accessHash);
      return { issued, account, oldAccessHash: old.accessHash };
    });
    if (!result) throw unauthorized('the refresh token is invalid or has expired');
    await this.forget([result.oldAccessHash]);
    if (!(await this.remember(result.issued, result.account, channel)))
      throw unauthorized('the account was changed while refreshing, please log in again');
    return { issued: result.issued, account: result.account };
  }

  /** Ends one session at once: its token row and its cached session. */
  async revoke(accessHash: string): Promise<void> {
    await tokenRepo.deleteByAccessHash(this.db, accessHash);
    await this.forget([accessHash]);
  }

  /**
   * Ends every session of an account at once, on every instance: its token rows and the cached
   * sessions in the shared store. Call it after the change that motivates it (disabling, new roles,
   * a new password) has committed, so no session can be rebuilt from the old state.
   */
  revokeAccount(kind: AccountKind, accountId: number): Promise<number> {
    return this.revokeAccounts(kind, [accountId]);
  }

  /**
   * revokeAccount of many accounts of a kind (a merchant's staff, a role's holders): a transaction of
   * two statements and one message to the other instances per REVOKE_BATCH accounts.
   */
  async revokeAccounts(kind: AccountKind, accountIds: readonly number[]): Promise<number> {
    const ids = [...new Set(accountIds)].sort((a, b) => a - b);
    let revoked = 0;
    for (let i = 0; i < ids.length; i += REVOKE_BATCH) {
      const batch = ids.slice(i, i + REVOKE_BATCH);
      // Under the lock a refresh takes before taking its row: a refresh in flight (which read the account
      // before the change) commits its new row first, and this delete, of a later snapshot, takes it.
      const tokens = await inTransaction(this.db, async (trx) => {
        await advisoryLocks(
          trx,
          'account-tokens',
          batch.map((id) => accountKey(kind, id)),
        );
        return tokenRepo.deleteByAccounts(trx, kind, batch);
      });
      // Sessions whose access token has expired are refused anyway: no need to tell anyone.
      const now = Date.now();
      await this.forget(tokens.filter((t) => t.accessExpiresAt.getTime() > now).map((t) => t.accessHash));
      revoked += tokens.length;
    }
    return revoked;
  }

  /** Deletes token rows whose refresh token has expired too; they can never be used again. */
  async purgeExpired(): Promise<number> {
    return tokenRepo.deleteExpired(this.db, new Date());
  }

  /**
   * Caches a session, then looks for its token row again: a revocation that committed meanwhile has
   * already cleared the store, so what was read before it must not outlive it there.
   */
  private async cacheWhileIssued(accessHash: string, session: Session): Promise<boolean> {
    await this.saveSession(accessHash, session);
    if (await tokenRepo.findByAccessHash(this.db, accessHash)) return true;
    await this.forget([accessHash]);
    return false;
  }

  /**
   * Sessions whose token rows are gone: out of the shared store, then out of every instance's memory
   * (told even when this one keeps none). In that order, so no instance reads them back after the message.
   */
  private async forget(accessHashes: string[]): Promise<void> {
    if (accessHashes.length === 0) return;
    // Every step is tried whatever failed before it; the first failure is thrown at the end (503 when
    // the store is down, whose subscribers then keep nothing: they were disconnected too).
    const steps = await Promise.allSettled(accessHashes.map((h) => this.store.del(sessionKey(h))));
    this.local?.drop(accessHashes);
    steps.push(...(await Promise.allSettled([this.store.publish(SESSION_DROP_CHANNEL, accessHashes.join(','))])));
    const failed = steps.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
  }

  private async saveSession(accessHash: string, session: Session): Promise<void> {
    const ttlS = Math.ceil((session.expiresAt - Date.now()) / 1000);
    if (ttlS > 0) await this.store.set(sessionKey(accessHash), JSON.stringify(session), ttlS);
  }
}
