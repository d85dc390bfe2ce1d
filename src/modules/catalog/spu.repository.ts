import type { Scope } from '../../platform/auth/permissions.js';
import type { Executor } from '../../platform/db/executor.js';
import { paginate } from '../../platform/db/paginate.js';
import type { ReferenceCheck } from '../../platform/db/references.js';
import { scopeCondition } from '../../platform/db/scope.js';
import { containsPattern, keywordsCondition } from '../../platform/db/text-match.js';
import type { Page, PageRequest } from '../../platform/http/paging.js';
import { LIST_MAX_ROWS } from '../../platform/http/schemas.js';
import type { MerchantState } from '../merchant/index.js';
import type { Spu, SpuFilter } from './spu.schemas.js';

/** A shop's merchant as an add under it needs it: a disabled one takes nothing new (docs/adr/0035-nothing-new-under-a-disabled-merchant.md). */
export interface ParentMerchant {
  merchantId: number;
  merchant: MerchantState | null;
}

export interface OwnedSpu extends Spu, ParentMerchant {}

export interface SpuValues {
  name: string;
  shopId: number;
  merchantId: number;
  resourceType: number;
  costPrice: number | null;
  stock: number | null;
  status: number;
  description: string | null;
}

/**
 * A living shop and its merchant; `share` holds both against a concurrent change until the
 * transaction ends (a delete of the shop, a disable of the merchant), so an add is seen or refused.
 */
export async function findShop(
  db: Executor,
  id: number,
  share = false,
): Promise<(ParentMerchant & { shopId: number }) | null> {
  let q = db
    .selectFrom('shop')
    .innerJoin('merchant', 'merchant.id', 'shop.merchant_id')
    .select(['shop.id', 'shop.merchant_id', 'merchant.name as merchant_name', 'merchant.status as merchant_status'])
    .where('shop.id', '=', id)
    .where('shop.is_deleted', '=', false);
  if (share) q = q.forShare();
  const r = await q.executeTakeFirst();
  return r
    ? { merchantId: r.merchant_id, shopId: r.id, merchant: { name: r.merchant_name, status: r.merchant_status } }
    : null;
}

function viewQuery(db: Executor) {
  return db
    .selectFrom('spu')
    .leftJoin('shop', 'shop.id', 'spu.shop_id')
    .leftJoin('merchant', 'merchant.id', 'spu.merchant_id')
    .select([
      'spu.id',
      'spu.name',
      'spu.shop_id',
      'spu.merchant_id',
      'spu.resource_type',
      'spu.cost_price',
      'spu.stock',
      'spu.status',
      'spu.description',
      'shop.name as shop_name',
      'merchant.name as merchant_name',
      'merchant.status as merchant_status',
    ])
    .where('spu.is_deleted', '=', false);
}

type ViewRow = Awaited<ReturnType<ReturnType<typeof viewQuery>['executeTakeFirstOrThrow']>>;

function toSpu(r: ViewRow): OwnedSpu {
  return {
    id: r.id,
    name: r.name,
    shopId: r.shop_id,
    resourceType: r.resource_type,
    costPrice: r.cost_price,
    stock: r.stock,
    status: r.status,
    description: r.description,
    shopsName: r.shop_name,
    merchantId: r.merchant_id,
    merchant:
      r.merchant_name === null || r.merchant_status === null
        ? null
        : { name: r.merchant_name, status: r.merchant_status },
  };
}

export const toWire = ({ merchantId: _m, merchant: _n, ...spu }: OwnedSpu): Spu => spu;

/**
 * A living resource; `lock` 'update' to change it, 'share' to add a SKU to it (its merchant is held
 * too, so a disable meanwhile waits or is seen).
 */
export async function findSpu(db: Executor, id: number, lock?: 'update' | 'share'): Promise<OwnedSpu | null> {
  if (lock === 'update') {
    if (
      !(await db
        .selectFrom('spu')
        .select('id')
        .where('id', '=', id)
        .where('is_deleted', '=', false)
        .forUpdate()
        .executeTakeFirst())
    )
      return null;
  } else if (lock === 'share') {
    const held = await db
      .selectFrom('spu')
      .innerJoin('merchant', 'merchant.id', 'spu.merchant_id')
      .select('spu.id')
      .where('spu.id', '=', id)
      .where('spu.is_deleted', '=', false)
      .forShare()
      .executeTakeFirst();
    if (!held) return null;
  }
  const r = await viewQuery(db).where('spu.id', '=', id).executeTakeFirst();
  return r ? toSpu(r) : null;
}

function columns(v: SpuValues) {
  return {
    name: v.name,
    shop_id: v.shopId,
    merchant_id: v.merchantId,
    resource_type: v.resourceType,
    cost_price: v.costPrice,
    stock: v.stock,
    status: v.status,
    description: v.description,
  };
}

export async function insertSpu(db: Executor, v: SpuValues, by: number): Promise<number> {
  const r = await db
    .insertInto('spu')
    .values({ ...columns(v), created_by: by, updated_by: by })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

export async function updateSpu(db: Executor, id: number, v: SpuValues, by: number): Promise<void> {
  await db
    .updateTable('spu')
    .set({ ...columns(v), updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

export async function softDeleteSpu(db: Executor, id: number, by: number): Promise<void> {
  await db
    .updateTable('spu')
    .set({ is_deleted: true, updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

/** The living SKUs of a resource that carry cardNum, which hold a tourism card's type. */
export const CARD_NUM_SKUS: ReferenceCheck = {
  label: ['SKU', 'SKUs'],
  table: 'sku',
  column: 'goods_id',
  living: true,
  where: { column: 'card_num', notNull: true },
};

export async function countLivingSkus(db: Executor, spuId: number): Promise<number> {
  const r = await db
    .selectFrom('sku')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('goods_id', '=', spuId)
    .where('is_deleted', '=', false)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** What may point at a resource; any living one refuses its deletion. */
export const SPU_REFERENCES: readonly ReferenceCheck[] = [
  { label: ['SKU', 'SKUs'], table: 'sku', column: 'goods_id', living: true },
  {
    label: ['card-model rule', 'card-model rules'],
    table: 'card_model_resource_rule',
    column: 'resource_id',
    living: true,
  },
  {
    label: ['coupon template', 'coupon templates'],
    table: 'coupon_template',
    column: 'product_scope_values',
    contains: true,
    living: true,
    where: { column: 'product_scope', equals: 2 },
  },
];

function filtered(db: Executor, f: SpuFilter, scope: Scope) {
  let q = viewQuery(db).where(scopeCondition(scope, 'spu.merchant_id', 'spu.shop_id'));
  if (f.name?.trim()) q = q.where('spu.name', 'ilike', containsPattern(f.name.trim()));
  if (f.shopId != null) q = q.where('spu.shop_id', '=', f.shopId);
  if (f.resourceType != null) q = q.where('spu.resource_type', '=', f.resourceType);
  if (f.status != null) q = q.where('spu.status', '=', f.status);
  if (f.idList?.length) q = q.where('spu.id', 'in', f.idList);
  const kw = keywordsCondition(f.keywords, ['spu.name', 'spu.description']);
  if (kw) q = q.where(kw);
  return q.orderBy('spu.id', 'desc');
}

export async function listSpus(db: Executor, f: SpuFilter, scope: Scope): Promise<Spu[]> {
  const rows = await filtered(db, f, scope).limit(LIST_MAX_ROWS).execute();
  return rows.map((r) => toWire(toSpu(r)));
}

export function pageSpus(db: Executor, f: SpuFilter, scope: Scope, page: PageRequest): Promise<Page<Spu>> {
  return paginate(db, filtered(db, f, scope), page, (r) => toWire(toSpu(r)));
}
