import type { Scope } from '../../platform/auth/permissions.js';
import type { Executor } from '../../platform/db/executor.js';
import { paginate } from '../../platform/db/paginate.js';
import type { ReferenceCheck } from '../../platform/db/references.js';
import { scopeCondition } from '../../platform/db/scope.js';
import { containsPattern, keywordsCondition } from '../../platform/db/text-match.js';
import type { Page, PageRequest } from '../../platform/http/paging.js';
import { LIST_MAX_ROWS } from '../../platform/http/schemas.js';
import type { Dept, DeptFilter } from './dept.schemas.js';
import type { MerchantState } from '../merchant/index.js';

export const SIBLING_NAME_INDEX = 'dept_sibling_name_uq';

/** What a service decides with: the department's owners, place in the tree and state. */
export interface DeptRow {
  id: number;
  merchantId: number | null;
  shopId: number | null;
  parentId: number;
  name: string;
  isEnabled: boolean;
  leaderUserId: number | null;
  phone: string | null;
  email: string | null;
  tenantId: number | null;
  /** its merchant's name and status (1 enabled); null when it has none */
  merchant: MerchantState | null;
}

export interface DeptValues {
  merchantId: number | null;
  shopId: number | null;
  name: string;
  parentId: number;
  sort: number;
  leaderUserId: number | null;
  phone: string | null;
  email: string | null;
  tenantId: number | null;
  isEnabled: boolean;
}

/**
 * A living department. `lock` 'update' for a change to it, 'share' when it is the parent of a new one
 * (a concurrent delete then waits, and sees the child).
 */
export async function findDept(db: Executor, id: number, lock?: 'update' | 'share'): Promise<DeptRow | null> {
  let q = db
    .selectFrom('dept')
    .leftJoin('merchant', 'merchant.id', 'dept.merchant_id')
    .select([
      'dept.id',
      'dept.merchant_id',
      'dept.shop_id',
      'dept.parent_id',
      'dept.name',
      'dept.is_enabled',
      'dept.leader_user_id',
      'dept.phone',
      'dept.email',
      'dept.tenant_id',
      'merchant.name as merchant_name',
      'merchant.status as merchant_status',
    ])
    .where('dept.id', '=', id)
    .where('dept.is_deleted', '=', false);
  if (lock === 'update') q = q.forUpdate('dept');
  if (lock === 'share') q = q.forShare('dept');
  const r = await q.executeTakeFirst();
  return r
    ? {
        id: r.id,
        merchantId: r.merchant_id,
        shopId: r.shop_id,
        parentId: r.parent_id,
        name: r.name,
        isEnabled: r.is_enabled,
        leaderUserId: r.leader_user_id,
        phone: r.phone,
        email: r.email,
        tenantId: r.tenant_id,
        merchant:
          r.merchant_name === null || r.merchant_status === null
            ? null
            : { name: r.merchant_name, status: r.merchant_status },
      }
    : null;
}

/** A living shop's merchant; null when there is no such shop. */
export async function findShopOwner(
  db: Executor,
  shopId: number,
): Promise<{ merchantId: number; shopId: number } | null> {
  const r = await db
    .selectFrom('shop')
    .select(['merchant_id'])
    .where('id', '=', shopId)
    .where('is_deleted', '=', false)
    .executeTakeFirst();
  return r ? { merchantId: r.merchant_id, shopId } : null;
}

/** A living staff user of the merchant (a department's leader must be one of its own). */
export async function staffOfMerchant(db: Executor, userId: number, merchantId: number | null): Promise<boolean> {
  let q = db.selectFrom('admin_user').select('id').where('id', '=', userId).where('is_deleted', '=', false);
  q = merchantId === null ? q.where('merchant_id', 'is', null) : q.where('merchant_id', '=', merchantId);
  return (await q.executeTakeFirst()) !== undefined;
}

function columns(v: DeptValues) {
  return {
    merchant_id: v.merchantId,
    shop_id: v.shopId,
    name: v.name,
    parent_id: v.parentId,
    sort: v.sort,
    leader_user_id: v.leaderUserId,
    phone: v.phone,
    email: v.email,
    tenant_id: v.tenantId,
    is_enabled: v.isEnabled,
  };
}

export async function insertDept(db: Executor, v: DeptValues, by: number): Promise<number> {
  const r = await db
    .insertInto('dept')
    .values({ ...columns(v), created_by: by, updated_by: by })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

export async function updateDept(db: Executor, id: number, v: DeptValues, by: number): Promise<void> {
  await db
    .updateTable('dept')
    .set({ ...columns(v), updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

export async function softDeleteDept(db: Executor, id: number, by: number): Promise<void> {
  await db
    .updateTable('dept')
    .set({ is_deleted: true, updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

/** What may point at a department; any living one refuses its deletion. */
export const DEPT_REFERENCES: readonly ReferenceCheck[] = [
  { label: ['sub-department', 'sub-departments'], table: 'dept', column: 'parent_id', living: true },
  { label: ['staff user', 'staff users'], table: 'admin_user', column: 'dept_id', living: true },
  { label: ['sales institution', 'sales institutions'], table: 'sales', column: 'dept_id', living: true },
];

function viewQuery(db: Executor) {
  return db
    .selectFrom('dept')
    .leftJoin('merchant', 'merchant.id', 'dept.merchant_id')
    .leftJoin('shop', 'shop.id', 'dept.shop_id')
    .select([
      'dept.id',
      'dept.merchant_id',
      'merchant.name as merchant_name',
      'dept.shop_id',
      'shop.name as shop_name',
      'dept.name',
      'dept.parent_id',
      'dept.sort',
      'dept.leader_user_id',
      'dept.phone',
      'dept.email',
      'dept.is_enabled',
    ])
    .where('dept.is_deleted', '=', false);
}

type ViewRow = Awaited<ReturnType<ReturnType<typeof viewQuery>['executeTakeFirstOrThrow']>>;

function toDept(r: ViewRow): Dept {
  return {
    id: r.id,
    merchantId: r.merchant_id,
    merchantName: r.merchant_name,
    shopId: r.shop_id,
    shopName: r.shop_name,
    name: r.name,
    parentId: r.parent_id,
    sort: r.sort,
    leaderUserId: r.leader_user_id,
    phone: r.phone,
    email: r.email,
    isEnabled: r.is_enabled,
  };
}

export async function getDeptView(db: Executor, id: number): Promise<Dept | null> {
  const r = await viewQuery(db).where('dept.id', '=', id).executeTakeFirst();
  return r ? toDept(r) : null;
}

function filtered(db: Executor, f: DeptFilter, scope: Scope) {
  let q = viewQuery(db).where(scopeCondition(scope, 'dept.merchant_id', 'dept.shop_id'));
  if (f.name?.trim()) q = q.where('dept.name', 'ilike', containsPattern(f.name.trim()));
  if (f.merchantId != null) q = q.where('dept.merchant_id', '=', f.merchantId);
  if (f.shopId != null) q = q.where('dept.shop_id', '=', f.shopId);
  if (f.parentId != null) q = q.where('dept.parent_id', '=', f.parentId);
  if (f.isEnabled != null) q = q.where('dept.is_enabled', '=', f.isEnabled);
  if (f.idList?.length) q = q.where('dept.id', 'in', f.idList);
  const kw = keywordsCondition(f.keywords, ['dept.name', 'dept.phone', 'dept.email']);
  if (kw) q = q.where(kw);
  // Siblings together, in their sort order: what a tree picker builds from.
  return q.orderBy('dept.parent_id').orderBy('dept.sort').orderBy('dept.id');
}

export async function listDepts(db: Executor, f: DeptFilter, scope: Scope): Promise<Dept[]> {
  const rows = await filtered(db, f, scope).limit(LIST_MAX_ROWS).execute();
  return rows.map(toDept);
}

export function pageDepts(db: Executor, f: DeptFilter, scope: Scope, page: PageRequest): Promise<Page<Dept>> {
  return paginate(db, filtered(db, f, scope), page, toDept);
}
