import { sql, type Selectable } from 'kysely';
import type { MerchantTable } from '../../db/tables/merchant.js';
import type { Scope } from '../../platform/auth/permissions.js';
import type { Executor } from '../../platform/db/executor.js';
import { paginate } from '../../platform/db/paginate.js';
import { containsPattern, keywordsCondition } from '../../platform/db/text-match.js';
import type { Page, PageRequest } from '../../platform/http/paging.js';
import { LIST_MAX_ROWS } from '../../platform/http/schemas.js';
import { formatDateTime } from '../../platform/time.js';
import type { Merchant, MerchantFilter } from './merchant.schemas.js';
import type { MerchantState } from './merchant-state.js';

export const MERCHANT_NAME_INDEX = 'merchant_name_uq';

export interface MerchantValues {
  name: string;
  merchantType: number;
  contactName: string | null;
  contactPhone: string | null;
  address: string | null;
  remark: string | null;
}

type Row = Selectable<MerchantTable> & { shop_count: number | string };

function toMerchant(r: Row): Merchant {
  return {
    id: r.id,
    name: r.name,
    merchantType: r.merchant_type,
    contactName: r.contact_name,
    contactPhone: r.contact_phone,
    address: r.address,
    remark: r.remark,
    status: r.status,
    shopCount: Number(r.shop_count),
    createdTime: formatDateTime(r.created_at),
    updatedTime: formatDateTime(r.updated_at),
  };
}

const toColumns = (v: MerchantValues) => ({
  name: v.name,
  merchant_type: v.merchantType,
  contact_name: v.contactName,
  contact_phone: v.contactPhone,
  address: v.address,
  remark: v.remark,
});

function withShopCount(db: Executor) {
  return db
    .selectFrom('merchant')
    .selectAll('merchant')
    .select(
      sql<number>`(select count(*) from shop s where s.merchant_id = merchant.id and not s.is_deleted)`.as(
        'shop_count',
      ),
    )
    .where('merchant.is_deleted', '=', false);
}

/** merchant_type of the platform's own merchant (2 scenic-spot operator, 3 sales partner). */
const PLATFORM_TYPE = 1;

/** Whether the merchant is of the platform's type (deleted or not: what it was when it made a record). */
export async function isPlatformMerchant(db: Executor, merchantId: number): Promise<boolean> {
  const r = await db.selectFrom('merchant').select('merchant_type').where('id', '=', merchantId).executeTakeFirst();
  return r?.merchant_type === PLATFORM_TYPE;
}

/** The platform's own merchant, when exactly one living merchant is of the platform's type. */
export async function findPlatformMerchantId(db: Executor): Promise<number | null> {
  const rows = await db
    .selectFrom('merchant')
    .select('id')
    .where('merchant_type', '=', PLATFORM_TYPE)
    .where('is_deleted', '=', false)
    .limit(2)
    .execute();
  return rows.length === 1 ? rows[0].id : null;
}

/** The merchant of a living shop, or null when there is no such shop. */
export async function findShopMerchant(db: Executor, shopId: number): Promise<number | null> {
  const r = await db
    .selectFrom('shop')
    .select('merchant_id')
    .where('id', '=', shopId)
    .where('is_deleted', '=', false)
    .executeTakeFirst();
  return r?.merchant_id ?? null;
}

/** A living merchant's name and status (MerchantState), for the modules that add records under it. */
export async function findMerchantState(db: Executor, merchantId: number): Promise<MerchantState | null> {
  const r = await db
    .selectFrom('merchant')
    .select(['name', 'status'])
    .where('id', '=', merchantId)
    .where('is_deleted', '=', false)
    .executeTakeFirst();
  return r ?? null;
}

/** A living merchant, locked for the rest of the transaction when `forUpdate`. */
export async function findMerchant(db: Executor, id: number, forUpdate = false): Promise<Merchant | null> {
  if (forUpdate) await db.selectFrom('merchant').select('id').where('id', '=', id).forUpdate().execute();
  const r = await withShopCount(db).where('merchant.id', '=', id).executeTakeFirst();
  return r ? toMerchant(r) : null;
}

export async function insertMerchant(db: Executor, v: MerchantValues, by: number | null): Promise<number> {
  const r = await db
    .insertInto('merchant')
    .values({ ...toColumns(v), status: 1, created_by: by, updated_by: by })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

export async function updateMerchant(db: Executor, id: number, v: MerchantValues, by: number): Promise<void> {
  await db
    .updateTable('merchant')
    .set({ ...toColumns(v), updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

export async function setMerchantStatus(db: Executor, id: number, status: number, by: number): Promise<void> {
  await db
    .updateTable('merchant')
    .set({ status, updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

/**
 * The staff accounts, verifiers and bank-channel staff (of the banks whose merchant it is) of a
 * merchant, its shops' included: whose sessions a disable ends.
 */
export async function accountsOfMerchant(
  db: Executor,
  merchantId: number,
): Promise<{ staff: number[]; checkers: number[]; bankUsers: number[] }> {
  const [staff, checkers, bankUsers] = await Promise.all([
    db
      .selectFrom('admin_user')
      .select('id')
      .where('merchant_id', '=', merchantId)
      .where('is_deleted', '=', false)
      .execute(),
    db
      .selectFrom('checker')
      .select('id')
      .where('merchant_id', '=', merchantId)
      .where('is_deleted', '=', false)
      .execute(),
    db
      .selectFrom('bank_user as u')
      .innerJoin('channel_business as b', 'b.id', 'u.channel_business_id')
      .select('u.id')
      .where('b.merchant_id', '=', merchantId)
      .where('u.is_deleted', '=', false)
      .execute(),
  ]);
  return { staff: staff.map((r) => r.id), checkers: checkers.map((r) => r.id), bankUsers: bankUsers.map((r) => r.id) };
}

function filtered(db: Executor, f: MerchantFilter, scope: Scope) {
  let q = withShopCount(db);
  if (scope.kind !== 'platform') q = q.where('merchant.id', '=', scope.merchantId);
  if (f.name?.trim()) q = q.where('merchant.name', 'ilike', containsPattern(f.name.trim()));
  if (f.merchantType != null) q = q.where('merchant.merchant_type', '=', f.merchantType);
  if (f.status != null) q = q.where('merchant.status', '=', f.status);
  if (f.idList?.length) q = q.where('merchant.id', 'in', f.idList);
  const kw = keywordsCondition(f.keywords, [
    'merchant.name',
    'merchant.contact_name',
    'merchant.contact_phone',
    'merchant.address',
  ]);
  if (kw) q = q.where(kw);
  return q.orderBy('merchant.id', 'desc');
}

export async function listMerchants(db: Executor, f: MerchantFilter, scope: Scope): Promise<Merchant[]> {
  const rows = await filtered(db, f, scope).limit(LIST_MAX_ROWS).execute();
  return rows.map(toMerchant);
}

export function pageMerchants(
  db: Executor,
  f: MerchantFilter,
  scope: Scope,
  page: PageRequest,
): Promise<Page<Merchant>> {
  return paginate(db, filtered(db, f, scope), page, toMerchant);
}
