import type { Executor } from '../../platform/db/executor.js';

export async function countStaff(db: Executor): Promise<number> {
  const r = await db
    .selectFrom('admin_user')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** The role by code, created with the given permissions when absent. */
export async function ensureRole(db: Executor, code: string, name: string, permissions: string[]): Promise<number> {
  const existing = await db.selectFrom('role').select('id').where('code', '=', code).executeTakeFirst();
  if (existing) return existing.id;
  const r = await db.insertInto('role').values({ code, name, permissions }).returning('id').executeTakeFirstOrThrow();
  return r.id;
}

export async function insertStaff(
  db: Executor,
  u: {
    username: string;
    passwordHash: string;
    nickname: string;
    userType: number;
    merchantId: number | null;
    shopId: number | null;
    mobile?: string | null;
  },
  roleIds: number[],
): Promise<number> {
  const r = await db
    .insertInto('admin_user')
    .values({
      username: u.username,
      password_hash: u.passwordHash,
      nickname: u.nickname,
      user_type: u.userType,
      merchant_id: u.merchantId,
      shop_id: u.shopId,
      mobile: u.mobile ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (roleIds.length)
    await db
      .insertInto('user_role')
      .values(roleIds.map((role_id) => ({ user_id: r.id, role_id })))
      .execute();
  return r.id;
}

/** A staff user's successful login: the last-login stamp and, when given, the re-hashed password. */
export async function stampStaffLogin(
  db: Executor,
  id: number,
  login: { ip: string; at: Date; newHash: string | null },
): Promise<void> {
  await db
    .updateTable('admin_user')
    .set({
      last_login_at: login.at,
      last_login_ip: login.ip.slice(0, 64),
      ...(login.newHash ? { password_hash: login.newHash } : {}),
    })
    .where('id', '=', id)
    .execute();
}
