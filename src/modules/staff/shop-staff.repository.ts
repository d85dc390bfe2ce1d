import type { Executor } from '../../platform/db/executor.js';
import { insertUser, replaceUserRoles } from './staff.repository.js';
import { UserType } from '../../platform/http/context.js';

/**
 * The default shop user that addShop creates: an admin_user row (docs/architecture.md §5.6, staff of type shop)
 * with the shop-admin role. Staff and role administration belong to another module; this writes
 * only what addShop needs, with the same columns, and lists the accounts deleteShop takes with it.
 */

/**
 * The global role (no merchant, no shop) of this code, created with the permissions when absent (an
 * existing one keeps its own list), locked FOR SHARE so what it grants cannot change before the link
 * commits. The code is reserved (addRole refuses it and no role's code changes), and migration 0027
 * renamed the merchants' and shops' roles that took it before the reservation, so it names this role alone.
 */
export async function ensureGlobalRole(
  db: Executor,
  code: string,
  name: string,
  permissions: readonly string[],
): Promise<{ id: number; permissions: string[] }> {
  // One statement, so two first addShops at once both end with the same role.
  await db
    .insertInto('role')
    .values({ code, name, permissions: [...permissions] })
    .onConflict((oc) => oc.column('code').doNothing())
    .execute();
  return db
    .selectFrom('role')
    .select(['id', 'permissions'])
    .where('code', '=', code)
    .where('merchant_id', 'is', null)
    .where('shop_id', 'is', null)
    .forShare()
    .executeTakeFirstOrThrow();
}

/** The living staff accounts of a shop, by id (deleteShop deletes them with it). */
export async function shopStaffIds(db: Executor, shopId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('admin_user')
    .select('id')
    .where('shop_id', '=', shopId)
    .where('is_deleted', '=', false)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

/** `preferred` when no living staff account has that name, else the first free `preferred_N`. */
export async function freeUsername(db: Executor, preferred: string): Promise<string> {
  const taken = new Set(
    (
      await db
        .selectFrom('admin_user')
        .select('username')
        .where('is_deleted', '=', false)
        .where('username', 'like', `${preferred}%`)
        .execute()
    ).map((r) => r.username),
  );
  if (!taken.has(preferred)) return preferred;
  for (let n = 2; ; n++) if (!taken.has(`${preferred}_${n}`)) return `${preferred}_${n}`;
}

export async function insertShopUser(
  db: Executor,
  u: {
    username: string;
    passwordHash: string;
    nickname: string;
    merchantId: number;
    shopId: number;
    deptId: number;
    roleId: number;
  },
  by: number,
): Promise<number> {
  const id = await insertUser(db, { ...u, userType: UserType.SHOP, mobile: null }, by);
  await replaceUserRoles(db, id, [u.roleId]);
  return id;
}

/** Deletes the shop's living staff accounts logically; answers their ids (their sessions are revoked by the caller). */
export async function deleteShopStaff(db: Executor, shopId: number, by: number, at: Date): Promise<number[]> {
  const users = await db
    .updateTable('admin_user')
    .set({ is_deleted: true, updated_by: by, updated_at: at })
    .where('shop_id', '=', shopId)
    .where('is_deleted', '=', false)
    .returning('id')
    .execute();
  return users.map((u) => u.id);
}
