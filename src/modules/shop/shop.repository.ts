import type { Insertable, Selectable } from 'kysely';
import type { ShopRelationTable, ShopTable } from '../../db/tables/shop.js';
import type { Scope } from '../../platform/auth/permissions.js';
import type { Executor } from '../../platform/db/executor.js';
import { paginate } from '../../platform/db/paginate.js';
import type { Reference, ReferenceCheck } from '../../platform/db/references.js';
import { scopeCondition } from '../../platform/db/scope.js';
import { containsPattern, keywordsCondition } from '../../platform/db/text-match.js';
import type { Page, PageRequest } from '../../platform/http/paging.js';
import { LIST_MAX_ROWS, codeText } from '../../platform/http/schemas.js';
import type { Shop, ShopFilter, ShopTextField } from './shop.schemas.js';

/** The stored shop without its relations. */
export type ShopFields = Omit<Shop, 'relationList'>;
export type ShopValues = Omit<ShopFields, 'id' | 'merchantName'>;
export interface RelationValues {
  thirdName: string | null;
  thirdId: string | null;
  channelType: number | null;
  remark: string | null;
}

/** wire name → column of each text field of the shop */
const TEXT_COLUMNS: Record<ShopTextField, keyof Selectable<ShopTable>> = {
  logo: 'logo',
  provinceId: 'province_id',
  cityId: 'city_id',
  districtId: 'district_id',
  address: 'address',
  mobile: 'mobile',
  linkman: 'linkman',
  linkphone: 'linkphone',
  manager: 'manager',
  level: 'level',
  lng: 'lng',
  lat: 'lat',
  introduction: 'introduction',
  businessTime: 'business_time',
  tags: 'tags',
  mainPic: 'main_pic',
  propagatePic: 'propagate_pic',
  video: 'video',
  poster: 'poster',
  propagateContent: 'propagate_content',
  description: 'description',
  ticketInfo: 'ticket_info',
  trafficInfo: 'traffic_info',
  tips: 'tips',
  thirdId: 'third_id',
  thirdName: 'third_name',
};
const TEXT_ENTRIES = Object.entries(TEXT_COLUMNS) as Array<[ShopTextField, keyof Selectable<ShopTable>]>;

function toFields(r: Selectable<ShopTable> & { merchant_name: string | null }): ShopFields {
  const texts = Object.fromEntries(
    TEXT_ENTRIES.map(([field, column]) => [field, r[column] as string | null]),
  ) as Record<ShopTextField, string | null>;
  return {
    id: r.id,
    merchantId: r.merchant_id,
    merchantName: r.merchant_name,
    name: r.name,
    typeId: r.type_id,
    subTypeId: r.sub_type_id,
    status: r.status,
    ...texts,
  };
}

function columns(v: ShopValues): Insertable<ShopTable> {
  const texts = Object.fromEntries(TEXT_ENTRIES.map(([field, column]) => [column, v[field]]));
  return {
    merchant_id: v.merchantId,
    name: v.name,
    type_id: v.typeId,
    sub_type_id: v.subTypeId,
    status: v.status,
    ...texts,
  };
}

function toRelation(r: Selectable<ShopRelationTable>) {
  // A ChannelType travels as its string code (spec A 2.2), as the add request sends it.
  return {
    id: r.id,
    thirdName: r.third_name,
    thirdId: r.third_id,
    channelType: codeText(r.channel_type),
    remark: r.remark,
  };
}

/** A living merchant with its status, held against a concurrent change until the transaction ends. */
export async function findMerchant(
  db: Executor,
  id: number,
): Promise<{ id: number; name: string; status: number } | null> {
  const r = await db
    .selectFrom('merchant')
    .select(['id', 'name', 'status'])
    .where('id', '=', id)
    .where('is_deleted', '=', false)
    .forShare()
    .executeTakeFirst();
  return r ?? null;
}

function viewQuery(db: Executor) {
  return db
    .selectFrom('shop')
    .leftJoin('merchant', 'merchant.id', 'shop.merchant_id')
    .selectAll('shop')
    .select('merchant.name as merchant_name')
    .where('shop.is_deleted', '=', false);
}

/** A living shop; `forUpdate` locks it for the rest of the transaction. */
export async function findShop(db: Executor, id: number, forUpdate = false): Promise<ShopFields | null> {
  if (
    forUpdate &&
    !(await db
      .selectFrom('shop')
      .select('id')
      .where('id', '=', id)
      .where('is_deleted', '=', false)
      .forUpdate()
      .executeTakeFirst())
  )
    return null;
  const r = await viewQuery(db).where('shop.id', '=', id).executeTakeFirst();
  return r ? toFields(r) : null;
}

export async function insertShop(db: Executor, v: ShopValues, by: number): Promise<number> {
  const r = await db
    .insertInto('shop')
    .values({ ...columns(v), created_by: by, updated_by: by })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

export async function updateShop(db: Executor, id: number, v: ShopValues, by: number): Promise<void> {
  await db
    .updateTable('shop')
    .set({ ...columns(v), updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

export async function replaceRelations(
  db: Executor,
  shopId: number,
  relations: readonly RelationValues[],
  by: number,
): Promise<void> {
  await db.deleteFrom('shop_relation').where('shop_id', '=', shopId).execute();
  if (relations.length === 0) return;
  await db
    .insertInto('shop_relation')
    .values(
      relations.map((r) => ({
        shop_id: shopId,
        third_name: r.thirdName,
        third_id: r.thirdId,
        channel_type: r.channelType,
        remark: r.remark,
        created_by: by,
        updated_by: by,
      })),
    )
    .execute();
}

export async function relationsOf(
  db: Executor,
  shopIds: readonly number[],
): Promise<Map<number, Shop['relationList']>> {
  const byShop = new Map<number, Shop['relationList']>(shopIds.map((id) => [id, []]));
  if (shopIds.length === 0) return byShop;
  const rows = await db.selectFrom('shop_relation').selectAll().where('shop_id', 'in', shopIds).orderBy('id').execute();
  for (const r of rows) byShop.get(r.shop_id)?.push(toRelation(r));
  return byShop;
}

/** Business records that keep a shop alive: any living one refuses its deletion. */
export const SHOP_REFERENCES: readonly ReferenceCheck[] = [
  { label: ['resource', 'resources'], table: 'spu', column: 'shop_id', living: true },
  { label: ['SKU', 'SKUs'], table: 'sku', column: 'shop_id', living: true },
  { label: ['verifier', 'verifiers'], table: 'checker', column: 'shop_id', living: true },
  { label: ['card', 'cards'], table: 'card', column: 'shop_id', living: true },
  { label: ['sales institution', 'sales institutions'], table: 'sales', column: 'shop_id', living: true },
  { label: ['custom distributor', 'custom distributors'], table: 'custom_dis', column: 'shop_id', living: true },
  { label: ['hotel', 'hotels'], table: 'hotel_info', column: 'shop_id', living: true },
  { label: ['coupon template', 'coupon templates'], table: 'coupon_template', column: 'shop_id', living: true },
  { label: ['merchant contract', 'merchant contracts'], table: 'merchant_contract', column: 'shop_id', living: true },
  {
    label: ['contract as party A', 'contracts as party A'],
    table: 'merchant_contract',
    column: 'shop_a',
    living: true,
  },
  {
    label: ['contract as party B', 'contracts as party B'],
    table: 'merchant_contract',
    column: 'shop_b',
    living: true,
  },
];

/** Staff of elsewhere placed in one of the shop's departments (those departments go with the shop). */
export async function outsidersInShopDepts(db: Executor, shopId: number): Promise<Reference | null> {
  const rows = await db
    .selectFrom('admin_user')
    .select('admin_user.id')
    .where('admin_user.is_deleted', '=', false)
    .where((eb) => eb.or([eb('admin_user.shop_id', 'is', null), eb('admin_user.shop_id', '!=', shopId)]))
    .where('admin_user.dept_id', 'in', (eb) =>
      eb.selectFrom('dept').select('dept.id').where('dept.shop_id', '=', shopId).where('dept.is_deleted', '=', false),
    )
    .orderBy('admin_user.id')
    .limit(LIST_MAX_ROWS)
    .execute();
  if (rows.length === 0) return null;
  return {
    label: ['staff user of elsewhere in its departments', 'staff users of elsewhere in its departments'],
    count: rows.length,
    ids: rows.slice(0, 5).map((r) => r.id),
  };
}

/** Deletes the shop logically (its departments and staff accounts are deleted by their owners). */
export async function softDeleteShop(db: Executor, shopId: number, by: number): Promise<void> {
  const now = new Date();
  const gone = { is_deleted: true, updated_by: by, updated_at: now };
  await db.updateTable('shop').set(gone).where('id', '=', shopId).execute();
}

function filtered(db: Executor, f: ShopFilter, scope: Scope) {
  let q = viewQuery(db).where(scopeCondition(scope, 'shop.merchant_id', 'shop.id'));
  if (f.merchantId != null) q = q.where('shop.merchant_id', '=', f.merchantId);
  if (f.name?.trim()) q = q.where('shop.name', 'ilike', containsPattern(f.name.trim()));
  if (f.status != null) q = q.where('shop.status', '=', f.status);
  if (f.typeId != null) q = q.where('shop.type_id', '=', f.typeId);
  if (f.provinceId) q = q.where('shop.province_id', '=', f.provinceId);
  if (f.cityId) q = q.where('shop.city_id', '=', f.cityId);
  if (f.districtId) q = q.where('shop.district_id', '=', f.districtId);
  if (f.idList?.length) q = q.where('shop.id', 'in', f.idList);
  const kw = keywordsCondition(f.keywords, ['shop.name', 'shop.address', 'shop.linkman', 'shop.mobile']);
  if (kw) q = q.where(kw);
  return q.orderBy('shop.id', 'desc');
}

async function withRelations(db: Executor, rows: ShopFields[]): Promise<Shop[]> {
  const relations = await relationsOf(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => Object.assign(r, { relationList: relations.get(r.id) ?? [] }));
}

export async function shopWithRelations(db: Executor, shop: ShopFields): Promise<Shop> {
  return (await withRelations(db, [shop]))[0];
}

export async function listShops(db: Executor, f: ShopFilter, scope: Scope): Promise<Shop[]> {
  return withRelations(db, (await filtered(db, f, scope).limit(LIST_MAX_ROWS).execute()).map(toFields));
}

export async function pageShops(db: Executor, f: ShopFilter, scope: Scope, page: PageRequest): Promise<Page<Shop>> {
  const p = await paginate(db, filtered(db, f, scope), page, toFields);
  return { list: await withRelations(db, p.list), total: p.total };
}
