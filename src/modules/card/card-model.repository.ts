import { sql } from 'kysely';
import type { Scope } from '../../platform/auth/permissions.js';
import type { Executor } from '../../platform/db/executor.js';
import { paginate } from '../../platform/db/paginate.js';
import { containsPattern, keywordsCondition } from '../../platform/db/text-match.js';
import type { Page, PageRequest } from '../../platform/http/paging.js';
import { LIST_MAX_ROWS } from '../../platform/http/schemas.js';
import { formatDateTime } from '../../platform/time.js';
import type { CardModel, CardModelFilter, PriceHistory } from './card-model.schemas.js';
import { cardModelVisible } from './card-scope.js';

function modelQuery(db: Executor) {
  return db
    .selectFrom('card_model as cm')
    .leftJoin('sku', 'sku.id', 'cm.sku_id')
    .leftJoin('merchant as m', 'm.id', 'cm.merchant_id')
    .select([
      'cm.id',
      'cm.name',
      'cm.price',
      'cm.validity_months',
      'cm.allocation_enabled',
      'cm.status',
      'cm.sku_id',
      'cm.merchant_id',
      'cm.remark',
      'cm.created_at',
      'cm.updated_at',
      'sku.sku_name',
      'm.name as merchant_name',
      sql<number>`(select count(*) from card_model_resource_rule rr where rr.card_model_id = cm.id and not rr.is_deleted)`.as(
        'rule_count',
      ),
      sql<number>`(select count(*) from card c where c.card_model_id = cm.id)`.as('card_count'),
    ])
    .where('cm.is_deleted', '=', false);
}

type ModelRow = Awaited<ReturnType<ReturnType<typeof modelQuery>['executeTakeFirstOrThrow']>>;

function toModel(r: ModelRow): CardModel {
  return {
    id: r.id,
    name: r.name,
    price: r.price,
    validityMonths: r.validity_months,
    allocationEnabled: r.allocation_enabled,
    status: r.status,
    skuId: r.sku_id,
    skuName: r.sku_name,
    merchantId: r.merchant_id,
    merchantName: r.merchant_name,
    remark: r.remark,
    ruleCount: Number(r.rule_count),
    cardCount: Number(r.card_count),
    createdTime: formatDateTime(r.created_at),
    updatedTime: formatDateTime(r.updated_at),
  };
}

/** A living card model, locked for the rest of the transaction when `forUpdate`. */
export async function findCardModel(db: Executor, id: number, forUpdate = false): Promise<CardModel | null> {
  if (forUpdate) await db.selectFrom('card_model').select('id').where('id', '=', id).forUpdate().execute();
  const r = await modelQuery(db).where('cm.id', '=', id).executeTakeFirst();
  return r ? toModel(r) : null;
}

/** Whether the scope sees the card model (cardModelVisible for one record). */
export async function modelVisibleTo(db: Executor, id: number, scope: Scope): Promise<boolean> {
  const r = await db
    .selectFrom('card_model as cm')
    .select('cm.id')
    .where('cm.id', '=', id)
    .where(cardModelVisible(scope))
    .executeTakeFirst();
  return r !== undefined;
}

export interface CardModelValues {
  name: string;
  price: number;
  validityMonths: number;
  allocationEnabled: boolean;
  skuId: number | null;
  merchantId: number | null;
  remark: string | null;
}

/** Inserts a model and the first row of its price history (valid from now). */
export async function insertCardModel(db: Executor, v: CardModelValues, by: number | null, at: Date): Promise<number> {
  const r = await db
    .insertInto('card_model')
    .values({
      name: v.name,
      price: v.price,
      validity_months: v.validityMonths,
      allocation_enabled: v.allocationEnabled,
      status: 1,
      sku_id: v.skuId,
      merchant_id: v.merchantId,
      remark: v.remark,
      created_by: by,
      updated_by: by,
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('card_model_price_history')
    .values({ card_model_id: r.id, price: v.price, validity_months: v.validityMonths, valid_from: at, created_by: by })
    .execute();
  return r.id;
}

/**
 * Updates a model. A new price or validity closes the current history row and opens a new one at
 * `at`; a model without history (made before it was kept) first gets a row for what it had.
 */
export async function updateCardModel(
  db: Executor,
  current: CardModel,
  v: Omit<CardModelValues, 'merchantId'>,
  by: number,
  at: Date,
): Promise<void> {
  await db
    .updateTable('card_model')
    .set({
      name: v.name,
      price: v.price,
      validity_months: v.validityMonths,
      allocation_enabled: v.allocationEnabled,
      sku_id: v.skuId,
      remark: v.remark,
      updated_by: by,
      updated_at: at,
    })
    .where('id', '=', current.id)
    .execute();
  if (v.price === current.price && v.validityMonths === current.validityMonths) return;
  const closed = await db
    .updateTable('card_model_price_history')
    .set({ valid_to: at })
    .where('card_model_id', '=', current.id)
    .where('valid_to', 'is', null)
    .executeTakeFirst();
  if (Number(closed.numUpdatedRows) === 0) {
    const made = await db
      .selectFrom('card_model')
      .select('created_at')
      .where('id', '=', current.id)
      .executeTakeFirstOrThrow();
    await db
      .insertInto('card_model_price_history')
      .values({
        card_model_id: current.id,
        price: current.price,
        validity_months: current.validityMonths,
        valid_from: made.created_at,
        valid_to: at,
      })
      .execute();
  }
  await db
    .insertInto('card_model_price_history')
    .values({
      card_model_id: current.id,
      price: v.price,
      validity_months: v.validityMonths,
      valid_from: at,
      created_by: by,
    })
    .execute();
}

export async function setCardModelFlags(
  db: Executor,
  id: number,
  set: { status?: number; allocationEnabled?: boolean },
  by: number,
): Promise<void> {
  await db
    .updateTable('card_model')
    .set({
      ...(set.status !== undefined ? { status: set.status } : {}),
      ...(set.allocationEnabled !== undefined ? { allocation_enabled: set.allocationEnabled } : {}),
      updated_by: by,
      updated_at: new Date(),
    })
    .where('id', '=', id)
    .execute();
}

export async function priceHistory(db: Executor, cardModelId: number): Promise<PriceHistory[]> {
  const rows = await db
    .selectFrom('card_model_price_history')
    .selectAll()
    .where('card_model_id', '=', cardModelId)
    .orderBy('valid_from')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    price: r.price,
    validityMonths: r.validity_months,
    validFrom: formatDateTime(r.valid_from)!,
    validTo: formatDateTime(r.valid_to),
    createdBy: r.created_by,
  }));
}

/** A living SKU of a tourism-card resource (spu type 1) with its merchant. */
export async function findCardSku(db: Executor, skuId: number): Promise<{ merchantId: number } | null> {
  const r = await db
    .selectFrom('sku')
    .innerJoin('spu', 'spu.id', 'sku.goods_id')
    .select('sku.merchant_id')
    .where('sku.id', '=', skuId)
    .where('sku.is_deleted', '=', false)
    .where('spu.resource_type', '=', 1)
    .executeTakeFirst();
  return r ? { merchantId: r.merchant_id } : null;
}

function filtered(db: Executor, f: CardModelFilter, scope: Scope) {
  let q = modelQuery(db).where(cardModelVisible(scope));
  if (f.name?.trim()) q = q.where('cm.name', 'ilike', containsPattern(f.name.trim()));
  if (f.status != null) q = q.where('cm.status', '=', f.status);
  if (f.allocationEnabled != null) q = q.where('cm.allocation_enabled', '=', f.allocationEnabled);
  if (f.merchantId != null) q = q.where('cm.merchant_id', '=', f.merchantId);
  if (f.idList?.length) q = q.where('cm.id', 'in', f.idList);
  const kw = keywordsCondition(f.keywords, ['cm.name', 'cm.remark']);
  if (kw) q = q.where(kw);
  return q.orderBy('cm.id', 'desc');
}

export async function listCardModels(db: Executor, f: CardModelFilter, scope: Scope): Promise<CardModel[]> {
  return (await filtered(db, f, scope).limit(LIST_MAX_ROWS).execute()).map(toModel);
}

export function pageCardModels(
  db: Executor,
  f: CardModelFilter,
  scope: Scope,
  page: PageRequest,
): Promise<Page<CardModel>> {
  return paginate(db, filtered(db, f, scope), page, toModel);
}
