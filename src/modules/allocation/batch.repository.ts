import { sql, type Expression, type Selectable, type SqlBool } from 'kysely';
import type { DistributeBatchTable, DistributeDetailTable } from '../../db/tables/allocation.js';
import type { Scope } from '../../platform/auth/permissions.js';
import type { Executor } from '../../platform/db/executor.js';
import { paginate } from '../../platform/db/paginate.js';
import { containsPattern, keywordsCondition } from '../../platform/db/text-match.js';
import type { Page, PageRequest } from '../../platform/http/paging.js';
import { formatDateTime } from '../../platform/time.js';
import type { BatchPageQuery, DistributeBatch, DistributeDetail } from './allocation.schemas.js';
import type { ScopeResult } from './calculation.js';

/** Batches, their details and the deferred-revenue ledger (DOMAIN.md §1, §2). */

export const BATCH_SCOPE_INDEX = 'distribute_batch_scope_uq';
const INSERT_CHUNK = 1000;

export function toBatch(r: Selectable<DistributeBatchTable>): DistributeBatch {
  return {
    id: r.id,
    batchNo: r.batch_no,
    year: r.year,
    month: r.month,
    quarter: r.quarter,
    cardModelId: r.card_model_id,
    cardModelName: r.card_model_name,
    cardModelPrice: r.card_model_price,
    validUserCount: r.valid_user_count,
    totalDistributeAmount: r.total_distribute_amount,
    parkCount: r.park_count,
    status: r.status,
    execTime: formatDateTime(r.exec_time),
    execBy: r.exec_by,
    ratio: r.ratio,
    calcMode: r.calc_mode,
    fixedAmount: r.fixed_amount,
    isDeleted: r.is_deleted,
    createdBy: r.created_by,
    createdTime: formatDateTime(r.created_at),
    updatedBy: r.updated_by,
    updatedTime: formatDateTime(r.updated_at),
  };
}

export type DetailRow = Pick<Selectable<DistributeDetailTable>,
  'id' | 'batch_id' | 'year' | 'month' | 'card_model_id' | 'park_id' | 'park_name' | 'check_num' | 'distribute_percent' | 'distribute_amount'>;
const DETAIL_COLUMNS = ['id', 'batch_id', 'year', 'month', 'card_model_id', 'park_id', 'park_name', 'check_num', 'distribute_percent', 'distribute_amount'] as const;

export function toDetail(r: DetailRow): DistributeDetail {
  return {
    id: r.id,
    batchId: r.batch_id,
    year: r.year,
    month: r.month,
    cardModelId: r.card_model_id,
    parkId: r.park_id,
    parkName: r.park_name,
    checkNum: r.check_num,
    distributePercent: Number(r.distribute_percent),
    distributeAmount: r.distribute_amount,
  };
}

/** Details a merchant or shop user may see: those naming its parks (all for the platform). */
function detailScope(scope: Scope, alias = 'distribute_detail'): Expression<SqlBool> {
  if (scope.kind === 'platform') return sql<SqlBool>`true`;
  const merchant = sql<SqlBool>`${sql.ref(`${alias}.merchant_id`)} = ${scope.merchantId}`;
  if (scope.kind === 'merchant') return merchant;
  return sql<SqlBool>`(${merchant} and ${sql.ref(`${alias}.shop_id`)} = ${scope.shopId})`;
}

/** A batch is visible to a merchant or shop user when one of its details names that user's park. */
function batchScope(scope: Scope): Expression<SqlBool> {
  if (scope.kind === 'platform') return sql<SqlBool>`true`;
  return sql<SqlBool>`exists (select 1 from distribute_detail d where d.batch_id = distribute_batch.id and ${detailScope(scope, 'd')})`;
}

/** A living batch, locked for the rest of the transaction when `forUpdate`. */
export async function findBatch(db: Executor, id: number, forUpdate = false): Promise<DistributeBatch | null> {
  let q = db.selectFrom('distribute_batch').selectAll().where('id', '=', id).where('is_deleted', '=', false);
  if (forUpdate) q = q.forUpdate();
  const row = await q.executeTakeFirst();
  return row ? toBatch(row) : null;
}

export async function batchVisible(db: Executor, id: number, scope: Scope): Promise<boolean> {
  if (scope.kind === 'platform') return true;
  const r = await db.selectFrom('distribute_batch').select('id').where('id', '=', id).where(batchScope(scope)).executeTakeFirst();
  return r !== undefined;
}

export function pageBatches(db: Executor, f: BatchPageQuery, scope: Scope, page: PageRequest): Promise<Page<DistributeBatch>> {
  let q = db.selectFrom('distribute_batch').selectAll().where('is_deleted', '=', false).where(batchScope(scope));
  if (f.year != null) q = q.where('year', '=', f.year);
  if (f.month != null) q = q.where('month', '=', f.month);
  if (f.quarter != null) q = q.where('quarter', '=', f.quarter);
  if (f.cardModelName?.trim()) q = q.where('card_model_name', 'ilike', containsPattern(f.cardModelName.trim()));
  q = q.orderBy('year', 'desc').orderBy('month', 'desc').orderBy('card_model_id').orderBy('id', 'desc');
  return paginate(db, q, page, toBatch);
}

function detailsOf(db: Executor, batchId: number, scope: Scope) {
  return db.selectFrom('distribute_detail').select(DETAIL_COLUMNS).where('batch_id', '=', batchId).where(detailScope(scope));
}

export function pageDetails(db: Executor, batchId: number, keywords: string | null | undefined, scope: Scope, page: PageRequest): Promise<Page<DistributeDetail>> {
  let q = detailsOf(db, batchId, scope);
  const kw = keywordsCondition(keywords, ['distribute_detail.park_name']);
  if (kw) q = q.where(kw);
  return paginate(db, q.orderBy('id'), page, toDetail);
}

export type ExportRecord = Pick<DistributeDetail, 'id' | 'parkId' | 'parkName' | 'checkNum' | 'distributePercent' | 'distributeAmount'>;

/** Keyset read of a batch's details in id order, with only the columns the export writes. */
export async function detailsAfter(db: Executor, batchId: number, scope: Scope, afterId: number | null, limit: number): Promise<ExportRecord[]> {
  let q = db
    .selectFrom('distribute_detail')
    .select(['id', 'park_id', 'park_name', 'check_num', 'distribute_percent', 'distribute_amount'])
    .where('batch_id', '=', batchId)
    .where(detailScope(scope));
  if (afterId !== null) q = q.where('id', '>', afterId);
  const rows = await q.orderBy('id').limit(limit).execute();
  return rows.map((r) => ({
    id: r.id, parkId: r.park_id, parkName: r.park_name, checkNum: r.check_num,
    distributePercent: Number(r.distribute_percent), distributeAmount: r.distribute_amount,
  }));
}

/**
 * Removes what a scope holds: its living batches become deleted (kept for the record), their details
 * and the scope's ledger row go. Answers the ids of the batches removed.
 */
export async function clearScope(db: Executor, s: { year: number; month: number; cardModelId: number }, by: number): Promise<number[]> {
  const removed = await db
    .updateTable('distribute_batch')
    .set({ is_deleted: true, updated_by: by, updated_at: new Date() })
    .where('year', '=', s.year)
    .where('month', '=', s.month)
    .where('card_model_id', '=', s.cardModelId)
    .where('is_deleted', '=', false)
    .returning('id')
    .execute();
  const ids = removed.map((r) => r.id);
  if (ids.length) await db.deleteFrom('distribute_detail').where('batch_id', 'in', ids).execute();
  await db.deleteFrom('deferred_revenue_ledger').where('year', '=', s.year).where('month', '=', s.month).where('card_model_id', '=', s.cardModelId).execute();
  return ids;
}

/** Inserts the batch of a calculated scope, its details and its ledger row. */
export async function insertScope(db: Executor, r: ScopeResult, run: { batchNo: string; execTime: Date; execBy: number }): Promise<DistributeBatch> {
  const batch = await db
    .insertInto('distribute_batch')
    .values({
      batch_no: run.batchNo, year: r.year, month: r.month, quarter: r.quarter,
      card_model_id: r.cardModelId, card_model_name: r.cardModelName, card_model_price: r.cardModelPrice,
      valid_user_count: r.validUserCount, total_distribute_amount: r.totalDistributeAmount, park_count: r.parkCount,
      status: 1, exec_time: run.execTime, exec_by: run.execBy, ratio: r.ratio, calc_mode: r.calcMode, fixed_amount: r.fixedAmount,
      created_by: run.execBy, updated_by: run.execBy,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  for (let i = 0; i < r.details.length; i += INSERT_CHUNK) {
    await db
      .insertInto('distribute_detail')
      .values(r.details.slice(i, i + INSERT_CHUNK).map((d) => ({
        batch_id: batch.id, year: r.year, month: r.month, card_model_id: r.cardModelId,
        park_id: d.parkId, park_name: d.parkName, merchant_id: d.merchantId, shop_id: d.shopId,
        check_num: d.checkNum, distribute_percent: d.distributePercent, distribute_amount: d.distributeAmount,
        created_by: run.execBy, updated_by: run.execBy,
      })))
      .execute();
  }
  const distributed = r.details.reduce((sum, d) => sum + d.distributeAmount, 0);
  await db
    .insertInto('deferred_revenue_ledger')
    .values({
      year: r.year, month: r.month, card_model_id: r.cardModelId, batch_id: batch.id,
      recognised_amount: r.totalDistributeAmount, distributed_amount: distributed,
      created_by: run.execBy, updated_by: run.execBy,
    })
    .execute();
  return toBatch(batch);
}

/** Marks one batch deleted and removes its details and its month's ledger row for its card model. */
export async function deleteBatch(db: Executor, b: { id: number; year: number; month: number; cardModelId: number }, by: number): Promise<void> {
  await db.updateTable('distribute_batch').set({ is_deleted: true, updated_by: by, updated_at: new Date() }).where('id', '=', b.id).execute();
  await db.deleteFrom('distribute_detail').where('batch_id', '=', b.id).execute();
  await db.deleteFrom('deferred_revenue_ledger').where('year', '=', b.year).where('month', '=', b.month).where('card_model_id', '=', b.cardModelId).execute();
}

/** Status 1 or 2 → 3 (exported); a batch already exported or deleted meanwhile is left alone. */
export async function markExported(db: Executor, id: number, by: number): Promise<boolean> {
  const r = await db
    .updateTable('distribute_batch')
    .set({ status: 3, updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .where('status', 'in', [1, 2])
    .where('is_deleted', '=', false)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
