import type { Scope } from '../../platform/auth/permissions.js';
import type { Executor } from '../../platform/db/executor.js';
import { paginate } from '../../platform/db/paginate.js';
import { scopeCondition } from '../../platform/db/scope.js';
import { keywordsCondition } from '../../platform/db/text-match.js';
import type { Page, PageRequest } from '../../platform/http/paging.js';
import { LIST_MAX_ROWS } from '../../platform/http/schemas.js';
import { formatDateTime } from '../../platform/time.js';
import type { CheckerConfigFilter, CheckerConfigView } from './checker-config.schemas.js';

/** A config row with the owner columns (its verifier's) a service checks scope against. */
export interface OwnedConfig extends CheckerConfigView {
  merchantId: number | null;
  shopId: number | null;
}

export interface ConfigValues {
  checkerId: number;
  merchantId: number;
  configType: number | null;
  item: string;
  name: string | null;
  value: string | null;
  remark: string | null;
}

export interface VerifierOwner {
  merchantId: number;
  shopId: number | null;
}

export const ITEM_INDEX = 'checker_config_item_uq';

// Owned through the verifier: a config follows its verifier's merchant and shop.
function configs(db: Executor) {
  return db
    .selectFrom('checker_config as cc')
    .leftJoin('checker as k', 'k.id', 'cc.checker_id')
    .select([
      'cc.id', 'cc.checker_id', 'k.name as checker_name', 'cc.name', 'cc.config_type', 'cc.item', 'cc.value', 'cc.remark',
      'cc.is_deleted', 'cc.created_at', 'cc.updated_at', 'k.merchant_id', 'k.shop_id',
    ])
    .where('cc.is_deleted', '=', false);
}

type ConfigRow = Awaited<ReturnType<ReturnType<typeof configs>['execute']>>[number];

function toConfig(r: ConfigRow): OwnedConfig {
  return {
    id: r.id,
    // Rows without a verifier are not made here; a legacy one shows as verifier 0 to the platform only.
    checkerId: r.checker_id ?? 0,
    checkerName: r.checker_name,
    name: r.name,
    configType: r.config_type,
    item: r.item ?? '',
    value: r.value,
    remark: r.remark,
    isDeleted: r.is_deleted,
    createdTime: formatDateTime(r.created_at),
    updatedTime: formatDateTime(r.updated_at),
    merchantId: r.merchant_id,
    shopId: r.shop_id,
  };
}

export const toWire = ({ merchantId: _m, shopId: _s, ...config }: OwnedConfig): CheckerConfigView => config;

export async function findConfig(db: Executor, id: number, forUpdate = false): Promise<OwnedConfig | null> {
  let q = configs(db).where('cc.id', '=', id);
  if (forUpdate) q = q.forUpdate('cc');
  const r = await q.executeTakeFirst();
  return r ? toConfig(r) : null;
}

export async function findVerifierOwner(db: Executor, checkerId: number): Promise<VerifierOwner | null> {
  const r = await db.selectFrom('checker').select(['merchant_id', 'shop_id']).where('id', '=', checkerId).where('is_deleted', '=', false).executeTakeFirst();
  return r ? { merchantId: r.merchant_id, shopId: r.shop_id } : null;
}

function toColumns(v: ConfigValues) {
  return { checker_id: v.checkerId, merchant_id: v.merchantId, config_type: v.configType, item: v.item, name: v.name, value: v.value, remark: v.remark };
}

export async function insertConfig(db: Executor, v: ConfigValues, by: number): Promise<number> {
  const r = await db.insertInto('checker_config').values({ ...toColumns(v), created_by: by, updated_by: by }).returning('id').executeTakeFirstOrThrow();
  return r.id;
}

export async function updateConfig(db: Executor, id: number, v: ConfigValues, by: number): Promise<void> {
  await db.updateTable('checker_config').set({ ...toColumns(v), updated_by: by, updated_at: new Date() }).where('id', '=', id).execute();
}

export async function softDeleteConfig(db: Executor, id: number, by: number): Promise<void> {
  await db.updateTable('checker_config').set({ is_deleted: true, updated_by: by, updated_at: new Date() }).where('id', '=', id).execute();
}

function filtered(db: Executor, f: CheckerConfigFilter, scope: Scope) {
  let q = configs(db).where(scopeCondition(scope, 'k.merchant_id', 'k.shop_id'));
  if (f.checkerId != null) q = q.where('cc.checker_id', '=', f.checkerId);
  if (f.configType != null) q = q.where('cc.config_type', '=', f.configType);
  const kw = keywordsCondition(f.keywords, ['cc.name', 'cc.item', 'cc.value', 'cc.remark', 'k.name']);
  if (kw) q = q.where(kw);
  return q.orderBy('cc.id', 'desc');
}

export async function listConfigs(db: Executor, f: CheckerConfigFilter, scope: Scope): Promise<CheckerConfigView[]> {
  const rows = await filtered(db, f, scope).limit(LIST_MAX_ROWS).execute();
  return rows.map((r) => toWire(toConfig(r)));
}

export function pageConfigs(db: Executor, f: CheckerConfigFilter, scope: Scope, page: PageRequest): Promise<Page<CheckerConfigView>> {
  return paginate(db, filtered(db, f, scope), page, (r) => toWire(toConfig(r)));
}
