import { sql, type Expression, type SqlBool } from 'kysely';
import type { Scope } from '../../platform/auth/permissions.js';
import type { Executor } from '../../platform/db/executor.js';
import { paginate } from '../../platform/db/paginate.js';
import type { DateRange } from '../../platform/date-range.js';
import { keywordsCondition } from '../../platform/db/text-match.js';
import type { Page, PageRequest } from '../../platform/http/paging.js';
import { LIST_MAX_ROWS } from '../../platform/http/schemas.js';
import type { MerchantState } from '../merchant/index.js';

/** A contract as stored, with the names of its parties. */
export interface ContractRow {
  id: number;
  merchantId: number | null;
  shopId: number | null;
  contractType: number;
  /** null while the party is open (not named yet) */
  merchantA: number | null;
  shopA: number | null;
  merchantB: number | null;
  shopB: number | null;
  signTime: Date | null;
  beginDate: Date | null;
  endDate: Date | null;
  merchantAName: string | null;
  shopAName: string | null;
  merchantBName: string | null;
  shopBName: string | null;
}

export type ContractValues = Omit<ContractRow, 'id' | 'merchantAName' | 'shopAName' | 'merchantBName' | 'shopBName'>;

export interface ContractFilterValues {
  contractType?: number | null;
  merchantId?: number | null;
  merchantA?: number | null;
  merchantB?: number | null;
  signTime?: DateRange | null;
  idList?: number[] | null;
  keywords?: string | null;
}

/**
 * What a staff account sees: every contract for the platform; for a merchant user those its merchant
 * keeps or is a party to; for a shop user those its shop keeps or is a party to.
 */
export function visibleTo(scope: Scope): Expression<SqlBool> {
  if (scope.kind === 'platform') return sql<SqlBool>`true`;
  if (scope.kind === 'merchant') {
    const m = scope.merchantId;
    return sql<SqlBool>`(c.merchant_id = ${m} or c.merchant_a = ${m} or c.merchant_b = ${m})`;
  }
  const s = scope.shopId;
  return sql<SqlBool>`(c.shop_id = ${s} or c.shop_a = ${s} or c.shop_b = ${s})`;
}

/**
 * A living merchant a contract names (keeper or party), held FOR SHARE until the transaction ends:
 * a disable meanwhile waits for the write, or the write sees it.
 */
export async function findMerchant(db: Executor, id: number): Promise<(MerchantState & { id: number }) | null> {
  const r = await db
    .selectFrom('merchant')
    .select(['id', 'name', 'status'])
    .where('id', '=', id)
    .where('is_deleted', '=', false)
    .forShare()
    .executeTakeFirst();
  return r ? { id: r.id, name: r.name, status: r.status } : null;
}

/**
 * A living shop a contract names, held FOR SHARE until the transaction ends, so a concurrent deleteShop
 * either waits and then sees the contract (409) or has deleted the shop first (404 here).
 */
export async function findShopOwner(db: Executor, id: number): Promise<{ merchantId: number; name: string } | null> {
  const r = await db
    .selectFrom('shop')
    .select(['merchant_id', 'name'])
    .where('id', '=', id)
    .where('is_deleted', '=', false)
    .forShare()
    .executeTakeFirst();
  return r ? { merchantId: r.merchant_id, name: r.name } : null;
}

function viewQuery(db: Executor) {
  return db
    .selectFrom('merchant_contract as c')
    .leftJoin('merchant as ma', 'ma.id', 'c.merchant_a')
    .leftJoin('shop as sa', 'sa.id', 'c.shop_a')
    .leftJoin('merchant as mb', 'mb.id', 'c.merchant_b')
    .leftJoin('shop as sb', 'sb.id', 'c.shop_b')
    .select([
      'c.id',
      'c.merchant_id',
      'c.shop_id',
      'c.contract_type',
      'c.merchant_a',
      'c.shop_a',
      'c.merchant_b',
      'c.shop_b',
      'c.sign_time',
      'c.begin_date',
      'c.end_date',
      'ma.name as merchant_a_name',
      'sa.name as shop_a_name',
      'mb.name as merchant_b_name',
      'sb.name as shop_b_name',
    ])
    .where('c.is_deleted', '=', false);
}

type ViewRow = Awaited<ReturnType<ReturnType<typeof viewQuery>['executeTakeFirstOrThrow']>>;

function toRow(r: ViewRow): ContractRow {
  return {
    id: r.id,
    merchantId: r.merchant_id,
    shopId: r.shop_id,
    contractType: r.contract_type,
    merchantA: r.merchant_a,
    shopA: r.shop_a,
    merchantB: r.merchant_b,
    shopB: r.shop_b,
    signTime: r.sign_time,
    beginDate: r.begin_date,
    endDate: r.end_date,
    merchantAName: r.merchant_a_name,
    shopAName: r.shop_a_name,
    merchantBName: r.merchant_b_name,
    shopBName: r.shop_b_name,
  };
}

/** A living contract; `forUpdate` locks it for the rest of the transaction. */
export async function findContract(db: Executor, id: number, forUpdate = false): Promise<ContractRow | null> {
  if (
    forUpdate &&
    !(await db
      .selectFrom('merchant_contract')
      .select('id')
      .where('id', '=', id)
      .where('is_deleted', '=', false)
      .forUpdate()
      .executeTakeFirst())
  ) {
    return null;
  }
  const r = await viewQuery(db).where('c.id', '=', id).executeTakeFirst();
  return r ? toRow(r) : null;
}

function columns(v: ContractValues) {
  return {
    merchant_id: v.merchantId,
    shop_id: v.shopId,
    contract_type: v.contractType,
    merchant_a: v.merchantA,
    shop_a: v.shopA,
    merchant_b: v.merchantB,
    shop_b: v.shopB,
    sign_time: v.signTime,
    begin_date: v.beginDate,
    end_date: v.endDate,
  };
}

export async function insertContract(db: Executor, v: ContractValues, by: number): Promise<number> {
  const r = await db
    .insertInto('merchant_contract')
    .values({ ...columns(v), created_by: by, updated_by: by })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

export async function updateContract(db: Executor, id: number, v: ContractValues, by: number): Promise<void> {
  await db
    .updateTable('merchant_contract')
    .set({ ...columns(v), updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

export async function softDeleteContract(db: Executor, id: number, by: number): Promise<void> {
  await db
    .updateTable('merchant_contract')
    .set({ is_deleted: true, updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

function filtered(db: Executor, f: ContractFilterValues, scope: Scope) {
  let q = viewQuery(db).where(visibleTo(scope));
  if (f.contractType != null) q = q.where('c.contract_type', '=', f.contractType);
  if (f.merchantId != null) q = q.where('c.merchant_id', '=', f.merchantId);
  if (f.merchantA != null) q = q.where('c.merchant_a', '=', f.merchantA);
  if (f.merchantB != null) q = q.where('c.merchant_b', '=', f.merchantB);
  if (f.signTime) q = q.where('c.sign_time', '>=', f.signTime.start).where('c.sign_time', '<=', f.signTime.end);
  if (f.idList?.length) q = q.where('c.id', 'in', f.idList);
  const kw = keywordsCondition(f.keywords, ['ma.name', 'sa.name', 'mb.name', 'sb.name']);
  if (kw) q = q.where(kw);
  return q.orderBy('c.id', 'desc');
}

export async function listContracts(db: Executor, f: ContractFilterValues, scope: Scope): Promise<ContractRow[]> {
  return (await filtered(db, f, scope).limit(LIST_MAX_ROWS).execute()).map(toRow);
}

export function pageContracts(
  db: Executor,
  f: ContractFilterValues,
  scope: Scope,
  page: PageRequest,
): Promise<Page<ContractRow>> {
  return paginate(db, filtered(db, f, scope), page, toRow);
}
