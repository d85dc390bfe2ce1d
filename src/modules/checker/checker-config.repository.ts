import { sql, type Expression, type SqlBool } from 'kysely';
import type { Scope } from '../../platform/auth/permissions.js';
import type { Executor } from '../../platform/db/executor.js';
import { paginate } from '../../platform/db/paginate.js';
import { keywordsCondition } from '../../platform/db/text-match.js';
import type { Page, PageRequest } from '../../platform/http/paging.js';
import { LIST_MAX_ROWS } from '../../platform/http/schemas.js';
import { formatDateTime } from '../../platform/time.js';
import type { CheckerConfigFilter, CheckerConfigView } from './checker-config.schemas.js';

export interface ConfigValues {
  /** null: a default of the owner's verifiers */
  checkerId: number | null;
  merchantId: number | null;
  shopId: number | null;
  configType: number | null;
  item: string | null;
  name: string | null;
  value: string | null;
  remark: string | null;
}

export interface VerifierOwner {
  merchantId: number;
  shopId: number | null;
}

export const ITEM_INDEX = 'checker_config_item_uq';
export const DEFAULT_ITEM_INDEX = 'checker_config_default_item_uq';

// A verifier's setting is owned through the verifier (it follows its verifier's merchant and shop); a
// default, without a verifier, by the merchant and shop stored on it.
const OWNER_MERCHANT = sql<number | null>`(case when cc.checker_id is null then cc.merchant_id else k.merchant_id end)`;
const OWNER_SHOP = sql<number | null>`(case when cc.checker_id is null then cc.shop_id else k.shop_id end)`;

function configs(db: Executor) {
  return db
    .selectFrom('checker_config as cc')
    .leftJoin('checker as k', 'k.id', 'cc.checker_id')
    .select([
      'cc.id',
      'cc.checker_id',
      'k.name as checker_name',
      'cc.name',
      'cc.config_type',
      'cc.item',
      'cc.value',
      'cc.remark',
      'cc.is_deleted',
      'cc.created_at',
      'cc.updated_at',
      OWNER_MERCHANT.as('owner_merchant_id'),
      OWNER_SHOP.as('owner_shop_id'),
    ])
    .where('cc.is_deleted', '=', false);
}

function inScope(scope: Scope): Expression<SqlBool> {
  if (scope.kind === 'platform') return sql<SqlBool>`true`;
  if (scope.kind === 'merchant') return sql<SqlBool>`${OWNER_MERCHANT} = ${scope.merchantId}`;
  return sql<SqlBool>`(${OWNER_MERCHANT} = ${scope.merchantId} and ${OWNER_SHOP} = ${scope.shopId})`;
}

type ConfigRow = Awaited<ReturnType<ReturnType<typeof configs>['execute']>>[number];

function toConfig(r: ConfigRow): CheckerConfigView {
  return {
    id: r.id,
    checkerId: r.checker_id,
    checkerName: r.checker_name,
    merchantId: r.owner_merchant_id,
    shopId: r.owner_shop_id,
    name: r.name,
    configType: r.config_type,
    item: r.item ?? '',
    value: r.value,
    remark: r.remark,
    isDeleted: r.is_deleted,
    createdTime: formatDateTime(r.created_at),
    updatedTime: formatDateTime(r.updated_at),
  };
}

export async function findConfig(db: Executor, id: number, forUpdate = false): Promise<CheckerConfigView | null> {
  let q = configs(db).where('cc.id', '=', id);
  if (forUpdate) q = q.forUpdate('cc');
  const r = await q.executeTakeFirst();
  return r ? toConfig(r) : null;
}

export async function findVerifierOwner(db: Executor, checkerId: number): Promise<VerifierOwner | null> {
  const r = await db
    .selectFrom('checker')
    .select(['merchant_id', 'shop_id'])
    .where('id', '=', checkerId)
    .where('is_deleted', '=', false)
    .executeTakeFirst();
  return r ? { merchantId: r.merchant_id, shopId: r.shop_id } : null;
}

function toColumns(v: ConfigValues) {
  return {
    checker_id: v.checkerId,
    merchant_id: v.merchantId,
    shop_id: v.shopId,
    config_type: v.configType,
    item: v.item,
    name: v.name,
    value: v.value,
    remark: v.remark,
  };
}

export async function insertConfig(db: Executor, v: ConfigValues, by: number): Promise<number> {
  const r = await db
    .insertInto('checker_config')
    .values({ ...toColumns(v), created_by: by, updated_by: by })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

export async function updateConfig(db: Executor, id: number, v: ConfigValues, by: number): Promise<void> {
  await db
    .updateTable('checker_config')
    .set({ ...toColumns(v), updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

export async function softDeleteConfig(db: Executor, id: number, by: number): Promise<void> {
  await db
    .updateTable('checker_config')
    .set({ is_deleted: true, updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

function filtered(db: Executor, f: CheckerConfigFilter, scope: Scope) {
  let q = configs(db).where(inScope(scope));
  if (f.checkerId != null) q = q.where('cc.checker_id', '=', f.checkerId);
  if (f.configType != null) q = q.where('cc.config_type', '=', f.configType);
  const kw = keywordsCondition(f.keywords, ['cc.name', 'cc.item', 'cc.value', 'cc.remark', 'k.name']);
  if (kw) q = q.where(kw);
  return q.orderBy('cc.id', 'desc');
}

export async function listConfigs(db: Executor, f: CheckerConfigFilter, scope: Scope): Promise<CheckerConfigView[]> {
  const rows = await filtered(db, f, scope).limit(LIST_MAX_ROWS).execute();
  return rows.map(toConfig);
}

export function pageConfigs(
  db: Executor,
  f: CheckerConfigFilter,
  scope: Scope,
  page: PageRequest,
): Promise<Page<CheckerConfigView>> {
  return paginate(db, filtered(db, f, scope), page, toConfig);
}
