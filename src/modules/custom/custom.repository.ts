import type { Scope } from '../../platform/auth/permissions.js';
import type { Executor } from '../../platform/db/executor.js';
import { paginate } from '../../platform/db/paginate.js';
import { scopeCondition } from '../../platform/db/scope.js';
import { keywordsCondition } from '../../platform/db/text-match.js';
import type { Page, PageRequest } from '../../platform/http/paging.js';
import { LIST_MAX_ROWS } from '../../platform/http/schemas.js';
import { formatDateTime } from '../../platform/time.js';
import type { CustomDis, CustomDisFilter, CustomDisUser, CustomDisUserFilter } from './custom.schemas.js';
import type { MerchantState } from '../merchant/index.js';

export const DIS_NAME_INDEX = 'custom_dis_name_uq';
export const USER_MOBILE_INDEX = 'custom_dis_user_mobile_uq';

export interface DisValues {
  merchantId: number | null;
  shopId: number | null;
  name: string | null;
  contact: string | null;
  phone: string | null;
  remark: string | null;
  status: number;
}

export interface UserValues {
  customDisId: number | null;
  merchantId: number | null;
  shopId: number | null;
  name: string | null;
  mobile: string | null;
  remark: string | null;
  status: number;
}

// ---- distributors -------------------------------------------------------------------------------

function disQuery(db: Executor) {
  return db.selectFrom('custom_dis').selectAll().where('is_deleted', '=', false);
}

type DisRow = Awaited<ReturnType<ReturnType<typeof disQuery>['executeTakeFirstOrThrow']>>;

function toDis(r: DisRow): CustomDis {
  return {
    id: r.id,
    merchantId: r.merchant_id,
    shopId: r.shop_id,
    name: r.name,
    contact: r.contact,
    phone: r.phone,
    remark: r.remark,
    status: r.status,
    createdTime: formatDateTime(r.created_at)!,
    updatedTime: formatDateTime(r.updated_at)!,
  };
}

/** A living distributor; `forUpdate` locks it (its users' mobiles are checked under that lock). */
export async function findDis(db: Executor, id: number, forUpdate = false): Promise<CustomDis | null> {
  let q = disQuery(db).where('id', '=', id);
  if (forUpdate) q = q.forUpdate();
  const r = await q.executeTakeFirst();
  return r ? toDis(r) : null;
}

/**
 * A living distributor that users are added to or moved to, locked (its users' mobiles are checked
 * under that lock), with the state of its merchant (null for the platform's own distributors).
 */
export async function findDisForUsers(
  db: Executor,
  id: number,
): Promise<{ dis: CustomDis; merchant: MerchantState | null } | null> {
  const r = await db
    .selectFrom('custom_dis')
    .leftJoin('merchant', 'merchant.id', 'custom_dis.merchant_id')
    .selectAll('custom_dis')
    .select(['merchant.name as merchant_name', 'merchant.status as merchant_status'])
    .where('custom_dis.id', '=', id)
    .where('custom_dis.is_deleted', '=', false)
    .forUpdate('custom_dis')
    .executeTakeFirst();
  if (!r) return null;
  const merchant =
    r.merchant_name === null || r.merchant_status === null
      ? null
      : { name: r.merchant_name, status: r.merchant_status };
  return { dis: toDis(r), merchant };
}

function disColumns(v: DisValues) {
  return {
    merchant_id: v.merchantId,
    shop_id: v.shopId,
    name: v.name,
    contact: v.contact,
    phone: v.phone,
    remark: v.remark,
    status: v.status,
  };
}

export async function insertDis(db: Executor, v: DisValues, by: number | null): Promise<CustomDis> {
  return toDis(
    await db
      .insertInto('custom_dis')
      .values({ ...disColumns(v), created_by: by, updated_by: by })
      .returningAll()
      .executeTakeFirstOrThrow(),
  );
}

export async function updateDis(db: Executor, id: number, v: DisValues, by: number | null): Promise<void> {
  await db
    .updateTable('custom_dis')
    .set({ ...disColumns(v), updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

function disFiltered(db: Executor, f: CustomDisFilter, scope: Scope) {
  let q = disQuery(db).where(scopeCondition(scope, 'custom_dis.merchant_id', 'custom_dis.shop_id'));
  if (f.status != null) q = q.where('status', '=', f.status);
  if (f.idList?.length) q = q.where('id', 'in', f.idList);
  const kw = keywordsCondition(f.keywords, ['custom_dis.name', 'custom_dis.contact', 'custom_dis.phone']);
  if (kw) q = q.where(kw);
  return q.orderBy('id', 'desc');
}

export async function listDis(db: Executor, f: CustomDisFilter, scope: Scope): Promise<CustomDis[]> {
  return (await disFiltered(db, f, scope).limit(LIST_MAX_ROWS).execute()).map(toDis);
}

export function pageDis(db: Executor, f: CustomDisFilter, scope: Scope, page: PageRequest): Promise<Page<CustomDis>> {
  return paginate(db, disFiltered(db, f, scope), page, toDis);
}

// ---- distributor users --------------------------------------------------------------------------

function userQuery(db: Executor) {
  return db
    .selectFrom('custom_dis_user as u')
    .leftJoin('custom_dis as d', 'd.id', 'u.custom_dis_id')
    .selectAll('u')
    .select('d.name as dis_name')
    .where('u.is_deleted', '=', false);
}

type UserRow = Awaited<ReturnType<ReturnType<typeof userQuery>['executeTakeFirstOrThrow']>>;

function toUser(r: UserRow): CustomDisUser {
  return {
    id: r.id,
    customDisId: r.custom_dis_id,
    customDisName: r.dis_name,
    merchantId: r.merchant_id,
    shopId: r.shop_id,
    name: r.name,
    mobile: r.mobile,
    remark: r.remark,
    status: r.status,
    createdTime: formatDateTime(r.created_at)!,
    updatedTime: formatDateTime(r.updated_at)!,
  };
}

export async function findUser(db: Executor, id: number, forUpdate = false): Promise<CustomDisUser | null> {
  if (
    forUpdate &&
    !(await db
      .selectFrom('custom_dis_user')
      .select('id')
      .where('id', '=', id)
      .where('is_deleted', '=', false)
      .forUpdate()
      .executeTakeFirst())
  ) {
    return null;
  }
  const r = await userQuery(db).where('u.id', '=', id).executeTakeFirst();
  return r ? toUser(r) : null;
}

/** Which of the mobiles already belong to a living user of the distributor. */
export async function takenMobiles(
  db: Executor,
  customDisId: number,
  mobiles: readonly string[],
): Promise<Set<string>> {
  if (mobiles.length === 0) return new Set();
  const rows = await db
    .selectFrom('custom_dis_user')
    .select('mobile')
    .where('custom_dis_id', '=', customDisId)
    .where('is_deleted', '=', false)
    .where('mobile', 'in', mobiles)
    .execute();
  return new Set(rows.flatMap((r) => (r.mobile === null ? [] : [r.mobile])));
}

function userColumns(v: UserValues) {
  return {
    custom_dis_id: v.customDisId,
    merchant_id: v.merchantId,
    shop_id: v.shopId,
    name: v.name,
    mobile: v.mobile,
    remark: v.remark,
    status: v.status,
  };
}

/** Inserts the users in one statement and answers them in the given order. */
export async function insertUsers(
  db: Executor,
  values: readonly UserValues[],
  by: number | null,
): Promise<CustomDisUser[]> {
  if (values.length === 0) return [];
  const ids = await db
    .insertInto('custom_dis_user')
    .values(values.map((v) => ({ ...userColumns(v), created_by: by, updated_by: by })))
    .returning('id')
    .execute();
  const rows = await userQuery(db)
    .where(
      'u.id',
      'in',
      ids.map((r) => r.id),
    )
    .orderBy('u.id')
    .execute();
  return rows.map(toUser);
}

export async function updateUser(db: Executor, id: number, v: UserValues, by: number | null): Promise<void> {
  await db
    .updateTable('custom_dis_user')
    .set({ ...userColumns(v), updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

function userFiltered(db: Executor, f: CustomDisUserFilter, scope: Scope) {
  let q = userQuery(db).where(scopeCondition(scope, 'u.merchant_id', 'u.shop_id'));
  if (f.customDisId != null) q = q.where('u.custom_dis_id', '=', f.customDisId);
  if (f.status != null) q = q.where('u.status', '=', f.status);
  if (f.idList?.length) q = q.where('u.id', 'in', f.idList);
  const kw = keywordsCondition(f.keywords, ['u.name', 'u.mobile']);
  if (kw) q = q.where(kw);
  return q.orderBy('u.id', 'desc');
}

export async function listUsers(db: Executor, f: CustomDisUserFilter, scope: Scope): Promise<CustomDisUser[]> {
  return (await userFiltered(db, f, scope).limit(LIST_MAX_ROWS).execute()).map(toUser);
}

export function pageUsers(
  db: Executor,
  f: CustomDisUserFilter,
  scope: Scope,
  page: PageRequest,
): Promise<Page<CustomDisUser>> {
  return paginate(db, userFiltered(db, f, scope), page, toUser);
}
