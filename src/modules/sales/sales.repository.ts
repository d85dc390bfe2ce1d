import type { Selectable } from 'kysely';
import type { SalesTable } from '../../db/tables/sales.js';
import type { Scope } from '../../platform/auth/permissions.js';
import type { Executor } from '../../platform/db/executor.js';
import { paginate } from '../../platform/db/paginate.js';
import { scopeCondition } from '../../platform/db/scope.js';
import { containsPattern, keywordsCondition } from '../../platform/db/text-match.js';
import type { Page, PageRequest } from '../../platform/http/paging.js';
import { LIST_MAX_ROWS } from '../../platform/http/schemas.js';
import type { Sales, SalesFilter } from './sales.schemas.js';

/** A sales row with the owner columns a service checks scope against. */
export interface OwnedSales extends Sales {
  merchantId: number | null;
  shopId: number | null;
}

export interface SalesValues {
  name: string;
  deptId: number;
  merchantId: number | null;
  shopId: number | null;
  phone: string | null;
  inviteCode: string | null;
  qrcode: string | null;
}

export const INVITE_CODE_INDEX = 'sales_invite_code_uq';

function toSales(r: Selectable<SalesTable>): OwnedSales {
  return {
    id: r.id,
    name: r.name,
    deptId: r.dept_id,
    phone: r.phone,
    inviteCode: r.invite_code,
    qrcode: r.qrcode,
    merchantId: r.merchant_id,
    shopId: r.shop_id,
  };
}

const toWire = ({ merchantId: _m, shopId: _s, ...sales }: OwnedSales): Sales => sales;

function toColumns(v: SalesValues) {
  return {
    name: v.name,
    dept_id: v.deptId,
    merchant_id: v.merchantId,
    shop_id: v.shopId,
    phone: v.phone,
    invite_code: v.inviteCode,
    qrcode: v.qrcode,
  };
}

/** A living sales institution, locked for the rest of the transaction when `forUpdate`. */
export async function findSales(db: Executor, id: number, forUpdate = false): Promise<OwnedSales | null> {
  let q = db.selectFrom('sales').selectAll().where('id', '=', id).where('is_deleted', '=', false);
  if (forUpdate) q = q.forUpdate();
  const r = await q.executeTakeFirst();
  return r ? toSales(r) : null;
}

export async function insertSales(db: Executor, v: SalesValues, by: number): Promise<Sales> {
  const r = await db
    .insertInto('sales')
    .values({ ...toColumns(v), created_by: by, updated_by: by })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toWire(toSales(r));
}

export async function updateSales(db: Executor, id: number, v: SalesValues, by: number): Promise<void> {
  await db
    .updateTable('sales')
    .set({ ...toColumns(v), updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

export async function softDeleteSales(db: Executor, id: number, by: number): Promise<void> {
  await db
    .updateTable('sales')
    .set({ is_deleted: true, updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

function filtered(db: Executor, f: SalesFilter, scope: Scope) {
  let q = db
    .selectFrom('sales')
    .selectAll()
    .where('is_deleted', '=', false)
    .where(scopeCondition(scope, 'sales.merchant_id', 'sales.shop_id'));
  if (f.name?.trim()) q = q.where('name', 'ilike', containsPattern(f.name.trim()));
  if (f.deptId != null) q = q.where('dept_id', '=', f.deptId);
  if (f.phone) q = q.where('phone', '=', f.phone);
  if (f.inviteCode) q = q.where('invite_code', '=', f.inviteCode);
  if (f.qrcode) q = q.where('qrcode', '=', f.qrcode);
  if (f.idList?.length) q = q.where('id', 'in', f.idList);
  const kw = keywordsCondition(f.keywords, ['sales.name', 'sales.phone', 'sales.invite_code']);
  if (kw) q = q.where(kw);
  return q.orderBy('id', 'desc');
}

export async function listSales(db: Executor, f: SalesFilter, scope: Scope): Promise<Sales[]> {
  const rows = await filtered(db, f, scope).limit(LIST_MAX_ROWS).execute();
  return rows.map((r) => toWire(toSales(r)));
}

export function pageSales(db: Executor, f: SalesFilter, scope: Scope, page: PageRequest): Promise<Page<Sales>> {
  return paginate(db, filtered(db, f, scope), page, (r) => toWire(toSales(r)));
}

export { toWire };
