import { sql } from 'kysely';
import type { Executor } from '../../platform/db/executor.js';
import type { Account } from '../../platform/http/context.js';

/** Bank staff accounts and what they are attached to (bank_user → channel business → operator). */

export interface BankUserCredentials {
  id: number;
  mobile: string;
  name: string;
  passwordHash: string;
  status: number;
}

/**
 * The organisation a bank session acts for, loaded at login and kept with the session
 * (bank-session.ts): the bank, and the operator row (with its channel) when the user is an operator.
 * A user without an operator manages the whole bank: it sees every operator but activates nothing.
 */
export interface BankRelations {
  businessId: number;
  businessName: string;
  merchantId: number;
  shopId: number | null;
  operator: { id: number; operatorId: number; operatorName: string; channelInfoId: number } | null;
}

/** Active user first, then the newest: a disabled user is still found and told it is disabled. */
export async function findBankUserByMobile(db: Executor, mobile: string): Promise<BankUserCredentials | null> {
  const r = await db
    .selectFrom('bank_user')
    .select(['id', 'mobile', 'name', 'password_hash', 'status'])
    .where('mobile', '=', mobile)
    .where('is_deleted', '=', false)
    .orderBy(sql`case when status = 1 then 0 else 1 end`)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return r ? { id: r.id, mobile: r.mobile, name: r.name, passwordHash: r.password_hash, status: r.status } : null;
}

/** Whether a phone belongs to an active bank user (bank-login codes go only to such phones). */
export async function isBankUserMobile(db: Executor, mobile: string): Promise<boolean> {
  const r = await db
    .selectFrom('bank_user')
    .select('id')
    .where('mobile', '=', mobile)
    .where('status', '=', 1)
    .where('is_deleted', '=', false)
    .executeTakeFirst();
  return r !== undefined;
}

/**
 * The session account of a bank user; null when the user, its bank, or the bank's merchant is gone or
 * disabled, which ends its sessions (disabling the merchant is the API's way to cut a bank off). The
 * bank's merchant and shop are the account's; its permissions its own.
 */
export async function loadBankAccount(db: Executor, id: number): Promise<Account | null> {
  const r = await db
    .selectFrom('bank_user as u')
    .innerJoin('channel_business as b', 'b.id', 'u.channel_business_id')
    .innerJoin('merchant as m', 'm.id', 'b.merchant_id')
    .select([
      'u.id',
      'u.name',
      'u.permissions',
      'u.status',
      'b.merchant_id',
      'b.shop_id',
      'b.status as business_status',
      'b.is_deleted as business_deleted',
      'm.status as merchant_status',
      'm.is_deleted as merchant_deleted',
    ])
    .where('u.id', '=', id)
    .where('u.is_deleted', '=', false)
    .executeTakeFirst();
  if (
    !r ||
    r.status !== 1 ||
    r.business_status !== 1 ||
    r.business_deleted ||
    r.merchant_status !== 1 ||
    r.merchant_deleted
  )
    return null;
  return {
    id: r.id,
    kind: 'bank',
    name: r.name,
    userType: null,
    merchantId: r.merchant_id,
    shopId: r.shop_id,
    permissions: r.permissions,
  };
}

/** The bank and operator a bank user acts for; null when it can no longer act (see loadBankAccount). */
export async function loadBankRelations(db: Executor, bankUserId: number): Promise<BankRelations | null> {
  const r = await db
    .selectFrom('bank_user as u')
    .innerJoin('channel_business as b', 'b.id', 'u.channel_business_id')
    .innerJoin('merchant as m', 'm.id', 'b.merchant_id')
    .leftJoin('openapi_channel_operator as o', (j) =>
      j.onRef('o.id', '=', 'u.operator_id').on('o.is_deleted', '=', false),
    )
    .leftJoin('channel_info as c', 'c.id', 'o.channel_info_id')
    .select([
      'b.id as business_id',
      'b.name as business_name',
      'b.merchant_id',
      'b.shop_id',
      'b.status as business_status',
      'b.is_deleted as business_deleted',
      'o.id as operator_row_id',
      'o.operator_id',
      'o.operator_name',
      'o.channel_info_id',
      'c.channel_business_id as operator_business_id',
      'm.status as merchant_status',
      'm.is_deleted as merchant_deleted',
    ])
    .where('u.id', '=', bankUserId)
    .where('u.status', '=', 1)
    .where('u.is_deleted', '=', false)
    .executeTakeFirst();
  if (!r || r.business_status !== 1 || r.business_deleted || r.merchant_status !== 1 || r.merchant_deleted) return null;
  // An operator of another bank's channel is no operator of this user's.
  const operator =
    r.operator_row_id != null && r.operator_business_id === r.business_id
      ? {
          id: r.operator_row_id,
          operatorId: r.operator_id!,
          operatorName: r.operator_name!,
          channelInfoId: r.channel_info_id!,
        }
      : null;
  return {
    businessId: r.business_id,
    businessName: r.business_name,
    merchantId: r.merchant_id,
    shopId: r.shop_id,
    operator,
  };
}

/**
 * Locks the bank user row (as its last-login UPDATE will anyway) and its bank's merchant, in the
 * transaction that issues the login's token, so a concurrent disable of either waits for the login and
 * then revokes its token, or commits first and the login sees it. Answers the password hash under the
 * lock, which the login compares again as staff and verifier logins do; null when the user is gone.
 */
export async function lockBankUserForLogin(db: Executor, id: number): Promise<{ passwordHash: string } | null> {
  const r = await db
    .selectFrom('bank_user as u')
    .innerJoin('channel_business as b', 'b.id', 'u.channel_business_id')
    .select(['b.merchant_id', 'u.password_hash'])
    .where('u.id', '=', id)
    .forNoKeyUpdate('u')
    .executeTakeFirst();
  if (!r) return null;
  await db.selectFrom('merchant').select('id').where('id', '=', r.merchant_id).forShare().execute();
  return { passwordHash: r.password_hash };
}

/** A bank user's successful login: the last-login stamp and, when given, the re-hashed password. */
export async function stampBankUserLogin(
  db: Executor,
  id: number,
  login: { ip: string; at: Date; newHash: string | null },
): Promise<void> {
  await db
    .updateTable('bank_user')
    .set({
      last_login_at: login.at,
      last_login_ip: login.ip.slice(0, 64),
      ...(login.newHash ? { password_hash: login.newHash } : {}),
    })
    .where('id', '=', id)
    .execute();
}
