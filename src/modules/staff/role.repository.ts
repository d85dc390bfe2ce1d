import { sql, type Expression, type SqlBool } from 'kysely';
import type { Scope } from '../../platform/auth/permissions.js';
import type { Executor } from '../../platform/db/executor.js';
import { paginate } from '../../platform/db/paginate.js';
import { containsPattern, keywordsCondition } from '../../platform/db/text-match.js';
import type { Page, PageRequest } from '../../platform/http/paging.js';
import { LIST_MAX_ROWS } from '../../platform/http/schemas.js';
import { formatDateTime } from '../../platform/time.js';
import type { Role, RoleFilter } from './role.schemas.js';

export const ROLE_CODE_CONSTRAINT = 'role_code_key';

/** A role with the owner columns a service checks scope against. */
export type OwnedRole = Role;

function roleQuery(db: Executor) {
  return db
    .selectFrom('role as r')
    .leftJoin('merchant as m', 'm.id', 'r.merchant_id')
    .leftJoin('shop as s', 's.id', 'r.shop_id')
    .select([
      'r.id',
      'r.code',
      'r.name',
      'r.permissions',
      'r.status',
      'r.merchant_id',
      'r.shop_id',
      'r.remark',
      'r.created_at',
      'r.updated_at',
      'm.name as merchant_name',
      's.name as shop_name',
      sql<number>`(select count(*) from user_role ur join admin_user u on u.id = ur.user_id where ur.role_id = r.id and not u.is_deleted)`.as(
        'user_count',
      ),
    ]);
}

type RoleRow = Awaited<ReturnType<ReturnType<typeof roleQuery>['executeTakeFirstOrThrow']>>;

function toRole(r: RoleRow): Role {
  return {
    id: r.id,
    code: r.code,
    name: r.name,
    permissions: r.permissions,
    status: r.status,
    merchantId: r.merchant_id,
    merchantName: r.merchant_name,
    shopId: r.shop_id,
    shopName: r.shop_name,
    remark: r.remark,
    userCount: Number(r.user_count),
    createdTime: formatDateTime(r.created_at),
    updatedTime: formatDateTime(r.updated_at),
  };
}

/**
 * The roles a staff account may see: every role for the platform; for a merchant user the global
 * roles and its merchant's; for a shop user the global roles, its merchant's own and its shop's.
 */
export function visibleRoles(scope: Scope): Expression<SqlBool> {
  if (scope.kind === 'platform') return sql<SqlBool>`true`;
  if (scope.kind === 'merchant') return sql<SqlBool>`(r.merchant_id is null or r.merchant_id = ${scope.merchantId})`;
  return sql<SqlBool>`(r.merchant_id is null or (r.merchant_id = ${scope.merchantId} and (r.shop_id is null or r.shop_id = ${scope.shopId})))`;
}

export async function findRole(db: Executor, id: number, forUpdate = false): Promise<Role | null> {
  if (forUpdate) await db.selectFrom('role').select('id').where('id', '=', id).forUpdate().execute();
  const r = await roleQuery(db).where('r.id', '=', id).executeTakeFirst();
  return r ? toRole(r) : null;
}

/** The roles of these ids that the scope may see (unknown or hidden ids are simply absent). */
export async function findVisibleRoles(db: Executor, ids: number[], scope: Scope): Promise<Role[]> {
  if (ids.length === 0) return [];
  const rows = await roleQuery(db).where('r.id', 'in', ids).where(visibleRoles(scope)).execute();
  return rows.map(toRole);
}

export async function findRoleIdByCode(db: Executor, code: string): Promise<number | null> {
  const r = await db.selectFrom('role').select('id').where('code', '=', code).executeTakeFirst();
  return r?.id ?? null;
}

export interface RoleValues {
  code: string;
  name: string;
  permissions: string[];
  merchantId: number | null;
  shopId: number | null;
  remark: string | null;
}

export async function insertRole(db: Executor, v: RoleValues, by: number | null): Promise<number> {
  const r = await db
    .insertInto('role')
    .values({
      code: v.code,
      name: v.name,
      permissions: v.permissions,
      merchant_id: v.merchantId,
      shop_id: v.shopId,
      remark: v.remark,
      status: 1,
      created_by: by,
      updated_by: by,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

export async function updateRole(
  db: Executor,
  id: number,
  v: { name: string; permissions: string[]; remark: string | null },
  by: number,
): Promise<void> {
  await db
    .updateTable('role')
    .set({ name: v.name, permissions: v.permissions, remark: v.remark, updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

export async function setRoleStatus(db: Executor, id: number, status: number, by: number): Promise<void> {
  await db.updateTable('role').set({ status, updated_by: by, updated_at: new Date() }).where('id', '=', id).execute();
}

export async function deleteRole(db: Executor, id: number): Promise<void> {
  await db.deleteFrom('role').where('id', '=', id).execute();
}

/** Living users holding the role: whose sessions a change of the role ends. */
export async function holdersOf(db: Executor, roleId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('user_role as ur')
    .innerJoin('admin_user as u', 'u.id', 'ur.user_id')
    .select('u.id')
    .where('ur.role_id', '=', roleId)
    .where('u.is_deleted', '=', false)
    .execute();
  return rows.map((r) => r.id);
}

/** Role links of deleted users: removed with the role (they only kept the record of what was held). */
export async function unlinkDeletedHolders(db: Executor, roleId: number): Promise<void> {
  await db
    .deleteFrom('user_role')
    .where('role_id', '=', roleId)
    .where('user_id', 'in', (eb) => eb.selectFrom('admin_user').select('id').where('is_deleted', '=', true))
    .execute();
}

function filtered(db: Executor, f: RoleFilter, scope: Scope) {
  let q = roleQuery(db).where(visibleRoles(scope));
  if (f.name?.trim()) q = q.where('r.name', 'ilike', containsPattern(f.name.trim()));
  if (f.code) q = q.where('r.code', '=', f.code);
  if (f.merchantId != null) q = q.where('r.merchant_id', '=', f.merchantId);
  if (f.status != null) q = q.where('r.status', '=', f.status);
  const kw = keywordsCondition(f.keywords, ['r.name', 'r.code', 'r.remark']);
  if (kw) q = q.where(kw);
  return q.orderBy('r.id', 'desc');
}

export async function listRoles(db: Executor, f: RoleFilter, scope: Scope): Promise<Role[]> {
  return (await filtered(db, f, scope).limit(LIST_MAX_ROWS).execute()).map(toRole);
}

export function pageRoles(db: Executor, f: RoleFilter, scope: Scope, page: PageRequest): Promise<Page<Role>> {
  return paginate(db, filtered(db, f, scope), page, toRole);
}
