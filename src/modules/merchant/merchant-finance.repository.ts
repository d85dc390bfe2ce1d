import type { Selectable } from 'kysely';
import type { MerchantFinanceTable } from '../../db/tables/merchant.js';
import type { Scope } from '../../platform/auth/permissions.js';
import type { Executor } from '../../platform/db/executor.js';
import { paginate } from '../../platform/db/paginate.js';
import { scopeCondition } from '../../platform/db/scope.js';
import { containsPattern, keywordsCondition } from '../../platform/db/text-match.js';
import type { Page, PageRequest } from '../../platform/http/paging.js';
import { LIST_MAX_ROWS } from '../../platform/http/schemas.js';
import { formatDateTime } from '../../platform/time.js';
import type { MerchantFinance, MerchantFinanceFilter, MerchantFinanceView } from './merchant-finance.schemas.js';

/** One living account per (merchant, shop or none, ebank_type): migration 0030. */
export const FINANCE_OWNER_INDEX = 'merchant_finance_owner_uq';

/** ebank_type of the account a merchant's settlement orders are paid to. */
export const MERCHANT_SETTLEMENT = 1;

export interface FinanceValues {
  ebankType: number;
  name: string;
  bank: string;
  bankAccount: string;
}

export function toFinance(r: Selectable<MerchantFinanceTable>): MerchantFinance {
  return {
    id: r.id,
    shopId: r.shop_id,
    merchantId: r.merchant_id,
    ebankType: r.ebank_type,
    name: r.name,
    bank: r.bank,
    bankAccount: r.bank_account,
    isDeleted: r.is_deleted,
    createdBy: r.created_by === null ? null : String(r.created_by),
    createdTime: formatDateTime(r.created_at),
    updatedBy: r.updated_by === null ? null : String(r.updated_by),
    updatedTime: formatDateTime(r.updated_at),
  };
}

type NamedRow = Selectable<MerchantFinanceTable> & { merchant_name: string | null; shop_name: string | null };

function toView(r: NamedRow): MerchantFinanceView {
  return Object.assign(toFinance(r), { merchantName: r.merchant_name, shopName: r.shop_name });
}

function named(db: Executor) {
  return db
    .selectFrom('merchant_finance as f')
    .leftJoin('merchant as m', 'm.id', 'f.merchant_id')
    .leftJoin('shop as s', 's.id', 'f.shop_id')
    .selectAll('f')
    .select(['m.name as merchant_name', 's.name as shop_name'])
    .where('f.is_deleted', '=', false);
}

/** A living account with its owners' names, locked for the rest of the transaction when `forUpdate`. */
export async function findFinance(db: Executor, id: number, forUpdate = false): Promise<MerchantFinanceView | null> {
  if (forUpdate) await db.selectFrom('merchant_finance').select('id').where('id', '=', id).forUpdate().execute();
  const r = await named(db).where('f.id', '=', id).executeTakeFirst();
  return r ? toView(r) : null;
}

/**
 * The merchant's own living merchant-settlement account (spec B 4.3 rule 3): a shop's account is not
 * the merchant's, so only the one without a shop is read. At most one exists (FINANCE_OWNER_INDEX).
 */
export async function settlementAccountOf(db: Executor, merchantId: number): Promise<MerchantFinance | null> {
  const r = await db
    .selectFrom('merchant_finance')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('shop_id', 'is', null)
    .where('ebank_type', '=', MERCHANT_SETTLEMENT)
    .where('is_deleted', '=', false)
    .executeTakeFirst();
  return r ? toFinance(r) : null;
}

const toColumns = (v: FinanceValues) => ({
  ebank_type: v.ebankType,
  name: v.name,
  bank: v.bank,
  bank_account: v.bankAccount,
});

export async function insertFinance(
  db: Executor,
  owner: { merchantId: number; shopId: number | null },
  v: FinanceValues,
  by: number,
): Promise<number> {
  const r = await db
    .insertInto('merchant_finance')
    .values({ merchant_id: owner.merchantId, shop_id: owner.shopId, ...toColumns(v), created_by: by, updated_by: by })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

export async function updateFinance(db: Executor, id: number, v: FinanceValues, by: number): Promise<void> {
  await db
    .updateTable('merchant_finance')
    .set({ ...toColumns(v), updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

export async function softDeleteFinance(db: Executor, id: number, by: number): Promise<void> {
  await db
    .updateTable('merchant_finance')
    .set({ is_deleted: true, updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

function filtered(db: Executor, f: MerchantFinanceFilter, scope: Scope) {
  let q = named(db).where(scopeCondition(scope, 'f.merchant_id', 'f.shop_id'));
  if (f.merchantId != null) q = q.where('f.merchant_id', '=', f.merchantId);
  if (f.shopId != null) q = q.where('f.shop_id', '=', f.shopId);
  if (f.ebankType != null) q = q.where('f.ebank_type', '=', f.ebankType);
  if (f.name?.trim()) q = q.where('f.name', 'ilike', containsPattern(f.name.trim()));
  if (f.bank?.trim()) q = q.where('f.bank', 'ilike', containsPattern(f.bank.trim()));
  if (f.idList?.length) q = q.where('f.id', 'in', f.idList);
  const kw = keywordsCondition(f.keywords, ['f.name', 'f.bank', 'm.name', 's.name']);
  if (kw) q = q.where(kw);
  return q.orderBy('f.id', 'desc');
}

export async function listFinance(
  db: Executor,
  f: MerchantFinanceFilter,
  scope: Scope,
): Promise<MerchantFinanceView[]> {
  const rows = await filtered(db, f, scope).limit(LIST_MAX_ROWS).execute();
  return rows.map(toView);
}

export function pageFinance(
  db: Executor,
  f: MerchantFinanceFilter,
  scope: Scope,
  page: PageRequest,
): Promise<Page<MerchantFinanceView>> {
  return paginate(db, filtered(db, f, scope), page, toView);
}
