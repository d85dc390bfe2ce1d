import type { Scope } from '../../platform/auth/permissions.js';
import type { Executor } from '../../platform/db/executor.js';
import { paginate } from '../../platform/db/paginate.js';
import { scopeCondition } from '../../platform/db/scope.js';
import { containsPattern, keywordsCondition } from '../../platform/db/text-match.js';
import type { Page, PageRequest } from '../../platform/http/paging.js';
import { LIST_MAX_ROWS } from '../../platform/http/schemas.js';
import { formatDateTime } from '../../platform/time.js';
import type { Checker, CheckerFilter, Relation } from './verifier.schemas.js';

export const MOBILE_ACTIVE_INDEX = 'checker_mobile_active_uq';
function checkerQuery(db: Executor) {
  return db
    .selectFrom('checker as c')
    .leftJoin('merchant as m', 'm.id', 'c.merchant_id')
    .leftJoin('shop as s', 's.id', 'c.shop_id')
    .select([
      'c.id',
      'c.mobile',
      'c.name',
      'c.merchant_id',
      'c.shop_id',
      'c.status',
      'c.ssk_flag',
      'c.last_login_at',
      'c.created_at',
      'c.updated_at',
      'm.name as merchant_name',
      's.name as shop_name',
    ])
    .where('c.is_deleted', '=', false);
}

type CheckerRow = Awaited<ReturnType<ReturnType<typeof checkerQuery>['executeTakeFirstOrThrow']>>;

function toChecker(r: CheckerRow, relations: Relation[]): Checker {
  return {
    id: r.id,
    mobile: r.mobile,
    name: r.name,
    merchantId: r.merchant_id,
    merchantName: r.merchant_name,
    shopId: r.shop_id,
    shopName: r.shop_name,
    status: r.status,
    sskFlag: r.ssk_flag,
    relations,
    lastLoginTime: formatDateTime(r.last_login_at),
    createdTime: formatDateTime(r.created_at),
    updatedTime: formatDateTime(r.updated_at),
  };
}

/** The relations of each verifier, by verifier id. */
async function relationsOf(db: Executor, checkerIds: number[]): Promise<Map<number, Relation[]>> {
  const out = new Map<number, Relation[]>(checkerIds.map((id) => [id, []]));
  if (checkerIds.length === 0) return out;
  const rows = await db
    .selectFrom('checker_relation as r')
    .innerJoin('sku as s', 's.id', 'r.sku_id')
    .leftJoin('sku_entrance as e', 'e.id', 'r.entrance_id')
    .select(['r.id', 'r.checker_id', 'r.sku_id', 's.sku_name', 'r.entrance_id', 'e.entrance_name'])
    .where('r.checker_id', 'in', checkerIds)
    .orderBy('r.sku_id')
    .orderBy('r.entrance_id')
    .execute();
  for (const r of rows) {
    out.get(r.checker_id)?.push({
      id: r.id,
      skuId: r.sku_id,
      skuName: r.sku_name,
      entranceId: r.entrance_id,
      entranceName: r.entrance_name,
    });
  }
  return out;
}

/** A living verifier with its relations, locked for the rest of the transaction when `forUpdate`. */
export async function findChecker(db: Executor, id: number, forUpdate = false): Promise<Checker | null> {
  if (forUpdate) await db.selectFrom('checker').select('id').where('id', '=', id).forUpdate().execute();
  const r = await checkerQuery(db).where('c.id', '=', id).executeTakeFirst();
  if (!r) return null;
  return toChecker(r, (await relationsOf(db, [id])).get(id)!);
}

export interface NewChecker {
  mobile: string;
  name: string;
  passwordHash: string;
  merchantId: number;
  shopId: number | null;
  sskFlag: boolean;
}

export async function insertChecker(db: Executor, v: NewChecker, by: number | null): Promise<number> {
  const r = await db
    .insertInto('checker')
    .values({
      mobile: v.mobile,
      name: v.name,
      password_hash: v.passwordHash,
      merchant_id: v.merchantId,
      shop_id: v.shopId,
      ssk_flag: v.sskFlag,
      status: 1,
      created_by: by,
      updated_by: by,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

export async function updateChecker(
  db: Executor,
  id: number,
  v: { mobile: string; name: string; sskFlag: boolean },
  by: number,
): Promise<void> {
  await db
    .updateTable('checker')
    .set({ mobile: v.mobile, name: v.name, ssk_flag: v.sskFlag, updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

export async function setCheckerStatus(db: Executor, id: number, status: number, by: number): Promise<void> {
  await db
    .updateTable('checker')
    .set({ status, updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

export async function setCheckerPassword(db: Executor, id: number, passwordHash: string, by: number): Promise<void> {
  await db
    .updateTable('checker')
    .set({ password_hash: passwordHash, updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

export interface RelationRow {
  skuId: number;
  entranceId: number | null;
  merchantId: number;
  shopId: number | null;
}

/** Replaces the verifier's relations with these (already checked and without duplicates); answers their ids in order. */
export async function replaceRelations(
  db: Executor,
  checkerId: number,
  rows: RelationRow[],
  by: number | null,
): Promise<number[]> {
  await db.deleteFrom('checker_relation').where('checker_id', '=', checkerId).execute();
  if (rows.length === 0) return [];
  const inserted = await db
    .insertInto('checker_relation')
    .values(
      rows.map((r) => ({
        checker_id: checkerId,
        sku_id: r.skuId,
        entrance_id: r.entranceId,
        merchant_id: r.merchantId,
        shop_id: r.shopId,
        created_by: by,
        updated_by: by,
      })),
    )
    .returning('id')
    .execute();
  return inserted.map((r) => r.id);
}

/** Living SKUs of these ids with their owners. */
export async function findSkus(
  db: Executor,
  ids: number[],
): Promise<Map<number, { merchantId: number; shopId: number | null }>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('sku')
    .select(['id', 'merchant_id', 'shop_id'])
    .where('id', 'in', ids)
    .where('is_deleted', '=', false)
    .execute();
  return new Map(rows.map((r) => [r.id, { merchantId: r.merchant_id, shopId: r.shop_id }]));
}

/** Living entrances of these ids with their SKU. */
export async function findEntrances(db: Executor, ids: number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('sku_entrance')
    .select(['id', 'sku_id'])
    .where('id', 'in', ids)
    .where('is_deleted', '=', false)
    .execute();
  return new Map(rows.map((r) => [r.id, r.sku_id]));
}

export async function findShopOwner(db: Executor, shopId: number): Promise<number | null> {
  const r = await db
    .selectFrom('shop')
    .select('merchant_id')
    .where('id', '=', shopId)
    .where('is_deleted', '=', false)
    .executeTakeFirst();
  return r?.merchant_id ?? null;
}

function filtered(db: Executor, f: CheckerFilter, scope: Scope) {
  let q = checkerQuery(db).where(scopeCondition(scope, 'c.merchant_id', 'c.shop_id'));
  if (f.mobile) q = q.where('c.mobile', '=', f.mobile);
  if (f.name?.trim()) q = q.where('c.name', 'ilike', containsPattern(f.name.trim()));
  if (f.merchantId != null) q = q.where('c.merchant_id', '=', f.merchantId);
  if (f.shopId != null) q = q.where('c.shop_id', '=', f.shopId);
  if (f.status != null) q = q.where('c.status', '=', f.status);
  if (f.sskFlag != null) q = q.where('c.ssk_flag', '=', f.sskFlag);
  if (f.idList?.length) q = q.where('c.id', 'in', f.idList);
  if (f.skuId != null) {
    const skuId = f.skuId;
    q = q.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('checker_relation as r')
          .select('r.id')
          .whereRef('r.checker_id', '=', 'c.id')
          .where('r.sku_id', '=', skuId),
      ),
    );
  }
  const kw = keywordsCondition(f.keywords, ['c.name', 'c.mobile']);
  if (kw) q = q.where(kw);
  return q.orderBy('c.id', 'desc');
}

export async function listCheckers(db: Executor, f: CheckerFilter, scope: Scope): Promise<Checker[]> {
  const rows = await filtered(db, f, scope).limit(LIST_MAX_ROWS).execute();
  const rel = await relationsOf(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toChecker(r, rel.get(r.id)!));
}

export async function pageCheckers(
  db: Executor,
  f: CheckerFilter,
  scope: Scope,
  page: PageRequest,
): Promise<Page<Checker>> {
  const rows = await paginate(db, filtered(db, f, scope), page);
  const rel = await relationsOf(
    db,
    rows.list.map((r) => r.id),
  );
  return { list: rows.list.map((r) => toChecker(r, rel.get(r.id)!)), total: rows.total };
}
