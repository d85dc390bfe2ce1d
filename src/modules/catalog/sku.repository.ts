import type { Selectable } from 'kysely';
import type { SkuEntranceTable, SkuTable } from '../../db/tables/catalog.js';
import type { Scope } from '../../platform/auth/permissions.js';
import type { Executor } from '../../platform/db/executor.js';
import { paginate } from '../../platform/db/paginate.js';
import type { ReferenceCheck } from '../../platform/db/references.js';
import { scopeCondition } from '../../platform/db/scope.js';
import { containsPattern, keywordsCondition } from '../../platform/db/text-match.js';
import type { Page, PageRequest } from '../../platform/http/paging.js';
import { LIST_MAX_ROWS, codeText } from '../../platform/http/schemas.js';
import { formatDateTime } from '../../platform/time.js';
import type { Sku, SkuEntranceOut, SkuFilter } from './sku.schemas.js';

/**
 * The stored SKU without its entrances, plus the owners a service checks scope against; its codes
 * (mold, status) as stored, integers: withEntrances writes them as the wire's strings.
 */
export type SkuFields = Omit<Sku, 'skuEntranceList' | 'mold' | 'status'> & {
  mold: number | null;
  status: number;
  merchantId: number;
  shopId: number | null;
};

export type SkuValues = Omit<SkuFields, 'id'>;

const rate = (v: string | null) => (v === null ? null : Number(v));

function toFields(r: Selectable<SkuTable>): SkuFields {
  return {
    id: r.id,
    goodsId: r.goods_id,
    goodsChannelId: r.goods_channel_id,
    skuName: r.sku_name,
    showPrice: r.show_price,
    buyPrice: r.buy_price,
    costPrice: r.cost_price,
    buyCount: r.buy_count,
    stock: r.stock,
    isLogistic: r.is_logistic,
    carriageId: r.carriage_id,
    mold: r.mold,
    isDistributes: r.is_distributes,
    commission: r.commission,
    isPreferential: r.is_preferential,
    isUseScore: r.is_use_score,
    isAddScore: r.is_add_score,
    useScoreRate: rate(r.use_score_rate),
    addScoreRate: rate(r.add_score_rate),
    cardNum: r.card_num,
    status: r.status,
    merchantId: r.merchant_id,
    shopId: r.shop_id,
  };
}

function columns(v: SkuValues) {
  return {
    goods_id: v.goodsId,
    merchant_id: v.merchantId,
    shop_id: v.shopId,
    goods_channel_id: v.goodsChannelId,
    sku_name: v.skuName,
    show_price: v.showPrice,
    buy_price: v.buyPrice,
    cost_price: v.costPrice,
    buy_count: v.buyCount,
    stock: v.stock,
    is_logistic: v.isLogistic,
    carriage_id: v.carriageId,
    mold: v.mold,
    is_distributes: v.isDistributes,
    commission: v.commission,
    is_preferential: v.isPreferential,
    is_use_score: v.isUseScore,
    is_add_score: v.isAddScore,
    use_score_rate: v.useScoreRate,
    add_score_rate: v.addScoreRate,
    card_num: v.cardNum,
    status: v.status,
  };
}

function toEntrance(r: Selectable<SkuEntranceTable>): SkuEntranceOut {
  return {
    id: r.id,
    skuId: r.sku_id,
    entranceName: r.entrance_name,
    merchantId: r.merchant_id,
    shopId: r.shop_id,
    goodsId: r.goods_id,
    createdBy: r.created_by === null ? null : String(r.created_by),
    createdTime: formatDateTime(r.created_at),
  };
}

/** A living SKU; `forUpdate` locks it for the rest of the transaction. */
export async function findSku(db: Executor, id: number, forUpdate = false): Promise<SkuFields | null> {
  let q = db.selectFrom('sku').selectAll().where('id', '=', id).where('is_deleted', '=', false);
  if (forUpdate) q = q.forUpdate();
  const r = await q.executeTakeFirst();
  return r ? toFields(r) : null;
}

/** The living entrances of the SKUs, by SKU id, in the order they were added. */
export async function entrancesOf(db: Executor, skuIds: readonly number[]): Promise<Map<number, SkuEntranceOut[]>> {
  const bySku = new Map<number, SkuEntranceOut[]>(skuIds.map((id) => [id, []]));
  if (skuIds.length === 0) return bySku;
  const rows = await db
    .selectFrom('sku_entrance')
    .selectAll()
    .where('sku_id', 'in', skuIds)
    .where('is_deleted', '=', false)
    .orderBy('id')
    .execute();
  for (const r of rows) bySku.get(r.sku_id)?.push(toEntrance(r));
  return bySku;
}

export async function insertSku(db: Executor, v: SkuValues, by: number): Promise<number> {
  const r = await db
    .insertInto('sku')
    .values({ ...columns(v), created_by: by, updated_by: by })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

export async function updateSku(db: Executor, id: number, v: SkuValues, by: number): Promise<void> {
  await db
    .updateTable('sku')
    .set({ ...columns(v), updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

/** The SKU and its entrances, logically deleted together. */
export async function softDeleteSku(db: Executor, id: number, by: number): Promise<void> {
  const now = new Date();
  await db
    .updateTable('sku_entrance')
    .set({ is_deleted: true, updated_by: by, updated_at: now })
    .where('sku_id', '=', id)
    .where('is_deleted', '=', false)
    .execute();
  await db.updateTable('sku').set({ is_deleted: true, updated_by: by, updated_at: now }).where('id', '=', id).execute();
}

export interface EntranceOwner {
  skuId: number;
  merchantId: number;
  shopId: number | null;
  goodsId: number;
}

export async function insertEntrances(
  db: Executor,
  owner: EntranceOwner,
  names: readonly string[],
  by: number,
): Promise<void> {
  if (names.length === 0) return;
  await db
    .insertInto('sku_entrance')
    .values(
      names.map((entrance_name) => ({
        sku_id: owner.skuId,
        entrance_name,
        merchant_id: owner.merchantId,
        shop_id: owner.shopId,
        goods_id: owner.goodsId,
        created_by: by,
        updated_by: by,
      })),
    )
    .execute();
}

/** Renames an entrance and brings its copied owner columns in line with its SKU. */
export async function updateEntrance(
  db: Executor,
  id: number,
  name: string,
  owner: EntranceOwner,
  by: number,
): Promise<void> {
  await db
    .updateTable('sku_entrance')
    .set({
      entrance_name: name,
      merchant_id: owner.merchantId,
      shop_id: owner.shopId,
      goods_id: owner.goodsId,
      updated_by: by,
      updated_at: new Date(),
    })
    .where('id', '=', id)
    .execute();
}

export async function softDeleteEntrance(db: Executor, id: number, by: number): Promise<void> {
  await db
    .updateTable('sku_entrance')
    .set({ is_deleted: true, updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

/** What may point at a SKU; any living one refuses its deletion. */
export const SKU_REFERENCES: readonly ReferenceCheck[] = [
  { label: ['card model', 'card models'], table: 'card_model', column: 'sku_id', living: true },
  { label: ['verifier relation', 'verifier relations'], table: 'checker_relation', column: 'sku_id' },
  { label: ['ticket kind', 'ticket kinds'], table: 'tickets_sku', column: 'sku_id', living: true },
];

/** What may point at one entrance: verifiers posted at that gate. */
export const ENTRANCE_REFERENCES: readonly ReferenceCheck[] = [
  { label: ['verifier relation', 'verifier relations'], table: 'checker_relation', column: 'entrance_id' },
];

function filtered(db: Executor, f: SkuFilter, scope: Scope) {
  let q = db
    .selectFrom('sku')
    .selectAll()
    .where('is_deleted', '=', false)
    .where(scopeCondition(scope, 'sku.merchant_id', 'sku.shop_id'));
  if (f.goodsId != null) q = q.where('goods_id', '=', f.goodsId);
  if (f.shopId != null) q = q.where('shop_id', '=', f.shopId);
  if (f.skuName?.trim()) q = q.where('sku_name', 'ilike', containsPattern(f.skuName.trim()));
  if (f.mold != null) q = q.where('mold', '=', f.mold);
  if (f.status != null) q = q.where('status', '=', f.status);
  if (f.idList?.length) q = q.where('id', 'in', f.idList);
  const kw = keywordsCondition(f.keywords, ['sku.sku_name']);
  if (kw) q = q.where(kw);
  return q.orderBy('id', 'desc');
}

async function withEntrances(db: Executor, rows: SkuFields[]): Promise<Sku[]> {
  const entrances = await entrancesOf(
    db,
    rows.map((r) => r.id),
  );
  return rows.map(({ merchantId: _m, shopId: _s, mold, status, ...sku }) =>
    Object.assign(sku, { mold: codeText(mold), status: String(status), skuEntranceList: entrances.get(sku.id) ?? [] }),
  );
}

export async function listSkus(db: Executor, f: SkuFilter, scope: Scope): Promise<Sku[]> {
  const rows = await filtered(db, f, scope).limit(LIST_MAX_ROWS).execute();
  return withEntrances(db, rows.map(toFields));
}

export async function pageSkus(db: Executor, f: SkuFilter, scope: Scope, page: PageRequest): Promise<Page<Sku>> {
  const p = await paginate(db, filtered(db, f, scope), page, toFields);
  return { list: await withEntrances(db, p.list), total: p.total };
}

export async function skuWithEntrances(db: Executor, sku: SkuFields): Promise<Sku> {
  return (await withEntrances(db, [sku]))[0];
}
