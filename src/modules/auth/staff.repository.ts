import type { Executor } from '../../platform/db/executor.js';
import type { Account } from '../../platform/http/context.js';

export interface StaffCredentials {
  id: number;
  username: string;
  passwordHash: string;
  nickname: string | null;
  mobile: string | null;
  status: number;
}

export async function findStaffByUsername(db: Executor, username: string): Promise<StaffCredentials | null> {
  const r = await db
    .selectFrom('admin_user')
    .select(['id', 'username', 'password_hash', 'nickname', 'mobile', 'status'])
    .where('username', '=', username)
    .where('is_deleted', '=', false)
    .executeTakeFirst();
  return r
    ? {
        id: r.id,
        username: r.username,
        passwordHash: r.password_hash,
        nickname: r.nickname,
        mobile: r.mobile,
        status: r.status,
      }
    : null;
}

/**
 * The staff account with the union of its enabled roles' permissions; null when gone or disabled, or
 * when its merchant is disabled.
 */
export async function loadStaffAccount(db: Executor, id: number): Promise<Account | null> {
  const user = await db
    .selectFrom('admin_user')
    .leftJoin('merchant', 'merchant.id', 'admin_user.merchant_id')
    .select([
      'admin_user.id',
      'admin_user.username',
      'admin_user.nickname',
      'admin_user.user_type',
      'admin_user.merchant_id',
      'admin_user.shop_id',
      'admin_user.status',
      'merchant.status as merchantStatus',
    ])
    .where('admin_user.id', '=', id)
    .where('admin_user.is_deleted', '=', false)
    .executeTakeFirst();
  if (!user || user.status !== 1) return null;
  if (user.merchant_id != null && user.merchantStatus !== 1) return null;
  const roles = await db
    .selectFrom('user_role')
    .innerJoin('role', 'role.id', 'user_role.role_id')
    .select('role.permissions')
    .where('user_role.user_id', '=', id)
    .where('role.status', '=', 1)
    .execute();
  const permissions = [...new Set(roles.flatMap((r) => r.permissions))];
  return {
    id: user.id,
    kind: 'admin',
    name: user.nickname ?? user.username,
    userType: user.user_type,
    merchantId: user.merchant_id,
    shopId: user.shop_id,
    permissions,
  };
}

/**
 * Locks what a staff login's session is built from, in the transaction that issues its token: the
 * user row (as its last-login UPDATE will anyway), its merchant and its role rows. A disable, delete,
 * new password, new roles or role edit then either waits for the login to commit, and its
 * revocation after its own commit finds the new token, or commits first and the login, reading
 * afresh, sees the change (docs/adr/0032-a-login-locks-what-its-session-is-built-from.md). Answers the password hash as it is now.
 */
export async function lockStaffForLogin(trx: Executor, id: number): Promise<{ passwordHash: string } | null> {
  const user = await trx
    .selectFrom('admin_user')
    .select(['merchant_id', 'password_hash'])
    .where('id', '=', id)
    .forNoKeyUpdate()
    .executeTakeFirst();
  if (!user) return null;
  if (user.merchant_id != null)
    await trx.selectFrom('merchant').select('id').where('id', '=', user.merchant_id).forShare().execute();
  await trx
    .selectFrom('user_role')
    .innerJoin('role', 'role.id', 'user_role.role_id')
    .select('role.id')
    .where('user_role.user_id', '=', id)
    .forShare()
    .execute();
  return { passwordHash: user.password_hash };
}
