import { sql } from 'kysely';
import type { Scope } from '../../platform/auth/permissions.js';
import type { Executor } from '../../platform/db/executor.js';
import { paginate } from '../../platform/db/paginate.js';
import { scopeCondition } from '../../platform/db/scope.js';
import { containsPattern, keywordsCondition } from '../../platform/db/text-match.js';
import type { Page, PageRequest } from '../../platform/http/paging.js';
import { formatDateTime } from '../../platform/time.js';
import type { User, UserPageQuery } from './staff.schemas.js';

export const USERNAME_INDEX = 'admin_user_username_uq';

export interface NewUser {
  username: string;
  passwordHash: string;
  nickname: string | null;
  mobile: string | null;
  userType: number;
  merchantId: number | null;
  shopId: number | null;
  deptId: number | null;
}

function userQuery(db: Executor) {
  return db
    .selectFrom('admin_user as u')
    .leftJoin('merchant as m', 'm.id', 'u.merchant_id')
    .leftJoin('shop as s', 's.id', 'u.shop_id')
    .leftJoin('dept as d', 'd.id', 'u.dept_id')
    .select([
      'u.id',
      'u.username',
      'u.nickname',
      'u.mobile',
      'u.user_type',
      'u.merchant_id',
      'u.shop_id',
      'u.dept_id',
      'u.status',
      'u.last_login_at',
      'u.last_login_ip',
      'u.created_at',
      'u.updated_at',
      'm.name as merchant_name',
      's.name as shop_name',
      'd.name as dept_name',
    ])
    .where('u.is_deleted', '=', false);
}

type UserRow = Awaited<ReturnType<ReturnType<typeof userQuery>['executeTakeFirstOrThrow']>>;

function toUser(r: UserRow, roles: User['roles']): User {
  return {
    id: r.id,
    username: r.username,
    nickname: r.nickname,
    mobile: r.mobile,
    userType: r.user_type,
    merchantId: r.merchant_id,
    merchantName: r.merchant_name,
    shopId: r.shop_id,
    shopName: r.shop_name,
    deptId: r.dept_id,
    deptName: r.dept_name,
    status: r.status,
    roles,
    lastLoginTime: formatDateTime(r.last_login_at),
    lastLoginIp: r.last_login_ip,
    createdTime: formatDateTime(r.created_at),
    updatedTime: formatDateTime(r.updated_at),
  };
}

/** The roles of each user, by user id. */
async function rolesOf(db: Executor, userIds: number[]): Promise<Map<number, User['roles']>> {
  const out = new Map<number, User['roles']>(userIds.map((id) => [id, []]));
  if (userIds.length === 0) return out;
  const rows = await db
    .selectFrom('user_role as ur')
    .innerJoin('role as r', 'r.id', 'ur.role_id')
    .select(['ur.user_id', 'r.id', 'r.code', 'r.name'])
    .where('ur.user_id', 'in', userIds)
    .orderBy('r.id')
    .execute();
  for (const r of rows) out.get(r.user_id)?.push({ id: r.id, code: r.code, name: r.name });
  return out;
}

/** A living user, locked for the rest of the transaction when `forUpdate`. */
export async function findUser(db: Executor, id: number, forUpdate = false): Promise<User | null> {
  if (forUpdate) await db.selectFrom('admin_user').select('id').where('id', '=', id).forUpdate().execute();
  const r = await userQuery(db).where('u.id', '=', id).executeTakeFirst();
  if (!r) return null;
  return toUser(r, (await rolesOf(db, [id])).get(id)!);
}

export async function insertUser(db: Executor, u: NewUser, by: number | null): Promise<number> {
  const r = await db
    .insertInto('admin_user')
    .values({
      username: u.username,
      password_hash: u.passwordHash,
      nickname: u.nickname,
      mobile: u.mobile,
      user_type: u.userType,
      merchant_id: u.merchantId,
      shop_id: u.shopId,
      dept_id: u.deptId,
      status: 1,
      created_by: by,
      updated_by: by,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

export async function updateUser(
  db: Executor,
  id: number,
  v: { nickname: string | null; mobile: string | null; deptId: number | null },
  by: number,
): Promise<void> {
  await db
    .updateTable('admin_user')
    .set({ nickname: v.nickname, mobile: v.mobile, dept_id: v.deptId, updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

export async function setUserStatus(db: Executor, id: number, status: number, by: number): Promise<void> {
  await db
    .updateTable('admin_user')
    .set({ status, updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

/** A new password also lifts a lock-out: the person now holds a password an administrator gave. */
export async function setPasswordHash(db: Executor, id: number, passwordHash: string, by: number): Promise<void> {
  await db
    .updateTable('admin_user')
    .set({ password_hash: passwordHash, updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

export async function passwordHashOf(db: Executor, id: number): Promise<string | null> {
  const r = await db
    .selectFrom('admin_user')
    .select('password_hash')
    .where('id', '=', id)
    .where('is_deleted', '=', false)
    .executeTakeFirst();
  return r?.password_hash ?? null;
}

export async function softDeleteUser(db: Executor, id: number, by: number): Promise<void> {
  await db
    .updateTable('admin_user')
    .set({ is_deleted: true, status: 0, updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

/** Replaces the user's roles; answers whether the set changed. */
export async function replaceUserRoles(db: Executor, userId: number, roleIds: number[]): Promise<boolean> {
  const before = (await db.selectFrom('user_role').select('role_id').where('user_id', '=', userId).execute())
    .map((r) => r.role_id)
    .sort((a, b) => a - b);
  const after = [...new Set(roleIds)].sort((a, b) => a - b);
  if (before.length === after.length && before.every((id, i) => id === after[i])) return false;
  await db.deleteFrom('user_role').where('user_id', '=', userId).execute();
  if (after.length)
    await db
      .insertInto('user_role')
      .values(after.map((role_id) => ({ user_id: userId, role_id })))
      .execute();
  return true;
}

/** The permissions of a user's enabled roles (what it could do once logged in). */
export async function permissionsOf(db: Executor, userId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('user_role as ur')
    .innerJoin('role as r', 'r.id', 'ur.role_id')
    .select('r.permissions')
    .where('ur.user_id', '=', userId)
    .where('r.status', '=', 1)
    .execute();
  return [...new Set(rows.flatMap((r) => r.permissions))];
}

/** Living, enabled users holding an enabled role that grants `*`. */
export async function countSuperAdmins(db: Executor): Promise<number> {
  const r = await db
    .selectFrom('admin_user as u')
    .select(sql<number>`count(*)`.as('n'))
    .where('u.is_deleted', '=', false)
    .where('u.status', '=', 1)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('user_role as ur')
          .innerJoin('role as r', 'r.id', 'ur.role_id')
          .select('ur.role_id')
          .whereRef('ur.user_id', '=', 'u.id')
          .where('r.status', '=', 1)
          .where(sql<boolean>`'*' = any(r.permissions)`),
      ),
    )
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function pageUsers(db: Executor, f: UserPageQuery, scope: Scope, page: PageRequest): Promise<Page<User>> {
  let q = userQuery(db).where(scopeCondition(scope, 'u.merchant_id', 'u.shop_id'));
  if (f.username?.trim()) q = q.where('u.username', 'ilike', containsPattern(f.username.trim()));
  if (f.mobile) q = q.where('u.mobile', '=', f.mobile);
  if (f.userType != null) q = q.where('u.user_type', '=', f.userType);
  if (f.merchantId != null) q = q.where('u.merchant_id', '=', f.merchantId);
  if (f.shopId != null) q = q.where('u.shop_id', '=', f.shopId);
  if (f.deptId != null) q = q.where('u.dept_id', '=', f.deptId);
  if (f.status != null) q = q.where('u.status', '=', f.status);
  if (f.roleId != null) {
    const roleId = f.roleId;
    q = q.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('user_role as ur')
          .select('ur.role_id')
          .whereRef('ur.user_id', '=', 'u.id')
          .where('ur.role_id', '=', roleId),
      ),
    );
  }
  const kw = keywordsCondition(f.keywords, ['u.username', 'u.nickname', 'u.mobile']);
  if (kw) q = q.where(kw);
  const rows = await paginate(db, q.orderBy('u.id', 'desc'), page);
  const roles = await rolesOf(
    db,
    rows.list.map((r) => r.id),
  );
  return { list: rows.list.map((r) => toUser(r, roles.get(r.id)!)), total: rows.total };
}

/** A living shop, held FOR SHARE: a deleteShop meanwhile (which deletes the shop's staff) waits or is waited for. */
export async function findShopOwner(db: Executor, shopId: number): Promise<{ merchantId: number } | null> {
  const r = await db
    .selectFrom('shop')
    .select('merchant_id')
    .where('id', '=', shopId)
    .where('is_deleted', '=', false)
    .forShare()
    .executeTakeFirst();
  return r ? { merchantId: r.merchant_id } : null;
}

export async function findDeptOwner(
  db: Executor,
  deptId: number,
): Promise<{ merchantId: number | null; shopId: number | null } | null> {
  const r = await db
    .selectFrom('dept')
    .select(['merchant_id', 'shop_id'])
    .where('id', '=', deptId)
    .where('is_deleted', '=', false)
    .executeTakeFirst();
  return r ? { merchantId: r.merchant_id, shopId: r.shop_id } : null;
}
