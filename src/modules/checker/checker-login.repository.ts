import { sql } from 'kysely';
import type { Executor } from '../../platform/db/executor.js';
import type { Account } from '../../platform/http/context.js';

export interface CheckerCredentials {
  id: number;
  mobile: string;
  name: string;
  passwordHash: string;
  status: number;
  sskFlag: boolean;
  merchantId: number;
  shopId: number | null;
}

/**
 * The verifier a mobile logs in as. The unique index covers only active verifiers, so a disabled one
 * may share the mobile with an active one (or with another disabled one): the active row wins, then
 * the newest, so a disabled verifier is still found and told it is disabled.
 */
export async function findCheckerByMobile(db: Executor, mobile: string): Promise<CheckerCredentials | null> {
  const r = await db
    .selectFrom('checker')
    .select(['id', 'mobile', 'name', 'password_hash', 'status', 'ssk_flag', 'merchant_id', 'shop_id'])
    .where('mobile', '=', mobile)
    .where('is_deleted', '=', false)
    .orderBy(sql`case when status = 1 then 0 else 1 end`)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return r
    ? {
        id: r.id,
        mobile: r.mobile,
        name: r.name,
        passwordHash: r.password_hash,
        status: r.status,
        sskFlag: r.ssk_flag,
        merchantId: r.merchant_id,
        shopId: r.shop_id,
      }
    : null;
}

/** The session account of a verifier; null when it or its merchant is gone or disabled, which ends its sessions. */
export async function loadCheckerAccount(db: Executor, id: number): Promise<Account | null> {
  const r = await db
    .selectFrom('checker')
    .innerJoin('merchant', 'merchant.id', 'checker.merchant_id')
    .select([
      'checker.id',
      'checker.name',
      'checker.merchant_id',
      'checker.shop_id',
      'checker.status',
      'merchant.status as merchantStatus',
    ])
    .where('checker.id', '=', id)
    .where('checker.is_deleted', '=', false)
    .executeTakeFirst();
  if (!r || r.status !== 1 || r.merchantStatus !== 1) return null;
  return {
    id: r.id,
    kind: 'checker',
    name: r.name,
    userType: null,
    merchantId: r.merchant_id,
    shopId: r.shop_id,
    permissions: [],
  };
}

/**
 * Locks the verifier row (as its last-login UPDATE will anyway) and its merchant's, in the transaction
 * that issues the login's token, so a concurrent disable or new password either waits for the login
 * and then revokes its token, or commits first and the login sees it. Answers the password hash now.
 */
export async function lockCheckerForLogin(db: Executor, id: number): Promise<{ passwordHash: string } | null> {
  const r = await db
    .selectFrom('checker')
    .select(['merchant_id', 'password_hash'])
    .where('id', '=', id)
    .forNoKeyUpdate()
    .executeTakeFirst();
  if (!r) return null;
  await db.selectFrom('merchant').select('id').where('id', '=', r.merchant_id).forShare().execute();
  return { passwordHash: r.password_hash };
}
