import type { Executor } from '../db/executor.js';

export interface TokenRow {
  /** null on rows written before sessions had ids */
  sessionId: string | null;
  accountId: number;
  accountKind: string;
  channel: string;
  accessExpiresAt: Date;
  refreshExpiresAt: Date;
}

export interface NewToken extends Omit<TokenRow, 'sessionId'> {
  sessionId: string;
  accessHash: string;
  refreshHash: string;
  clientIp: string | null;
}

const columns = [
  'session_id',
  'account_id',
  'account_kind',
  'channel',
  'access_expires_at',
  'refresh_expires_at',
] as const;

function toRow(r: {
  session_id: string | null;
  account_id: number;
  account_kind: string;
  channel: string;
  access_expires_at: Date;
  refresh_expires_at: Date;
}): TokenRow {
  return {
    sessionId: r.session_id,
    accountId: r.account_id,
    accountKind: r.account_kind,
    channel: r.channel,
    accessExpiresAt: r.access_expires_at,
    refreshExpiresAt: r.refresh_expires_at,
  };
}

export async function insertToken(db: Executor, t: NewToken): Promise<void> {
  await db
    .insertInto('oauth2_token')
    .values({
      access_hash: t.accessHash,
      refresh_hash: t.refreshHash,
      account_id: t.accountId,
      account_kind: t.accountKind,
      channel: t.channel,
      access_expires_at: t.accessExpiresAt,
      refresh_expires_at: t.refreshExpiresAt,
      client_ip: t.clientIp,
      session_id: t.sessionId,
    })
    .execute();
}

export async function findByAccessHash(db: Executor, accessHash: string): Promise<TokenRow | null> {
  const r = await db
    .selectFrom('oauth2_token')
    .select(columns)
    .where('access_hash', '=', accessHash)
    .executeTakeFirst();
  return r ? toRow(r) : null;
}

/** The account a refresh token belongs to, read without a lock (the refresh locks the account next). */
export async function findOwnerByRefreshHash(
  db: Executor,
  refreshHash: string,
): Promise<{ accountKind: string; accountId: number } | null> {
  const r = await db
    .selectFrom('oauth2_token')
    .select(['account_kind', 'account_id'])
    .where('refresh_hash', '=', refreshHash)
    .executeTakeFirst();
  return r ? { accountKind: r.account_kind, accountId: Number(r.account_id) } : null;
}

/** Deletes and returns in one statement, so two concurrent refreshes cannot both succeed. */
export async function takeByRefreshHash(
  db: Executor,
  refreshHash: string,
): Promise<(TokenRow & { accessHash: string }) | null> {
  const r = await db
    .deleteFrom('oauth2_token')
    .where('refresh_hash', '=', refreshHash)
    .returning([...columns, 'access_hash'])
    .executeTakeFirst();
  return r ? Object.assign(toRow(r), { accessHash: r.access_hash.trim() }) : null;
}

export async function deleteByAccessHash(db: Executor, accessHash: string): Promise<void> {
  await db.deleteFrom('oauth2_token').where('access_hash', '=', accessHash).execute();
}

/** Deletes every token of the accounts; answers the access hashes (the keys of their cached sessions) and expiries. */
export async function deleteByAccounts(
  db: Executor,
  kind: string,
  accountIds: readonly number[],
): Promise<Array<{ accessHash: string; accessExpiresAt: Date }>> {
  if (accountIds.length === 0) return [];
  const rows = await db
    .deleteFrom('oauth2_token')
    .where('account_kind', '=', kind)
    .where('account_id', 'in', accountIds)
    .returning(['access_hash', 'access_expires_at'])
    .execute();
  return rows.map((r) => ({ accessHash: r.access_hash.trim(), accessExpiresAt: r.access_expires_at }));
}

export async function deleteExpired(db: Executor, now: Date): Promise<number> {
  const r = await db.deleteFrom('oauth2_token').where('refresh_expires_at', '<', now).executeTakeFirst();
  return Number(r.numDeletedRows);
}
