import type { Executor } from '../../platform/db/executor.js';
import { UserType } from '../../platform/http/context.js';

/**
 * The default shop user that addShop creates: an admin_user row (DESIGN.md §5.6, staff of type shop)
 * with the shop-admin role. Staff and role administration belong to another module; this writes
 * only what addShop needs, with the same columns.
 */

/** The role by code, created with the permissions when absent; an existing role keeps its own list. */
export async function ensureRole(db: Executor, code: string, name: string, permissions: readonly string[]): Promise<number> {
  // One statement, so two first addShops at once both end with the same role.
  await db.insertInto('role').values({ code, name, permissions: [...permissions] }).onConflict((oc) => oc.column('code').doNothing()).execute();
  const r = await db.selectFrom('role').select('id').where('code', '=', code).executeTakeFirstOrThrow();
  return r.id;
}

/** `preferred` when no living staff account has that name, else the first free `preferred_N`. */
export async function freeUsername(db: Executor, preferred: string): Promise<string> {
  const taken = new Set(
    (await db.selectFrom('admin_user').select('username').where('is_deleted', '=', false).where('username', 'like', `${preferred}%`).execute()).map((r) => r.username),
  );
  if (!taken.has(preferred)) return preferred;
  for (let n = 2; ; n++) if (!taken.has(`${preferred}_${n}`)) return `${preferred}_${n}`;
}

export async function insertShopUser(
  db: Executor,
  u: { username: string; passwordHash: string; nickname: string; merchantId: number; shopId: number; deptId: number; roleId: number },
  by: number,
): Promise<number> {
  const r = await db.insertInto('admin_user').values({
    username: u.username, password_hash: u.passwordHash, nickname: u.nickname, user_type: UserType.SHOP, merchant_id: u.merchantId,
    shop_id: u.shopId, dept_id: u.deptId, created_by: by, updated_by: by,
  }).returning('id').executeTakeFirstOrThrow();
  await db.insertInto('user_role').values({ user_id: r.id, role_id: u.roleId }).execute();
  return r.id;
}
