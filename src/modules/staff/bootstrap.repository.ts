import type { Executor } from '../../platform/db/executor.js';
import { insertUser, replaceUserRoles } from './staff.repository.js';

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
  const id = await insertUser(db, { ...u, mobile: u.mobile ?? null, deptId: null }, null);
  if (roleIds.length) await replaceUserRoles(db, id, roleIds);
  return id;
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
