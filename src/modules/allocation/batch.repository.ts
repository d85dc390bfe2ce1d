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

/** Batches, their details and the deferred-revenue ledger (docs/domain.md §1, §2). */

export const BATCH_SCOPE_INDEX = 'distribute_batch_scope_uq';

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

export type DetailRow = Pick<
  Selectable<DistributeDetailTable>,
  | 'id'
  | 'batch_id'
  | 'year'
  | 'month'
  | 'card_model_id'
  | 'park_id'
  | 'park_name'
  | 'check_num'
  | 'distribute_percent'
  | 'distribute_amount'
>;
const DETAIL_COLUMNS = [
  'id',
  'batch_id',
  'year',
  'month',
  'card_model_id',
  'park_id',
  'park_name',
  'check_num',
  'distribute_percent',
  'distribute_amount',
] as const;

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
  const r = await db
    .selectFrom('distribute_batch')
    .select('id')
    .where('id', '=', id)
    .where(batchScope(scope))
    .executeTakeFirst();
  return r !== undefined;
}

export function pageBatches(
  db: Executor,
  f: BatchPageQuery,
  scope: Scope,
  page: PageRequest,
): Promise<Page<DistributeBatch>> {
  let q = db.selectFrom('distribute_batch').selectAll().where('is_deleted', '=', false).where(batchScope(scope));
  if (f.year != null) q = q.where('year', '=', f.year);
  if (f.month != null) q = q.where('month', '=', f.month);
  if (f.quarter != null) q = q.where('quarter', '=', f.quarter);
  if (f.cardModelName?.trim()) q = q.where('card_model_name', 'ilike', containsPattern(f.cardModelName.trim()));
  q = q.orderBy('year', 'desc').orderBy('month', 'desc').orderBy('card_model_id').orderBy('id', 'desc');
  return paginate(db, q, page, toBatch);
}

function detailsOf(db: Executor, batchId: number, scope: Scope) {
  return db
    .selectFrom('distribute_detail')
    .select(DETAIL_COLUMNS)
    .where('batch_id', '=', batchId)
    .where(detailScope(scope));
}

export function pageDetails(
  db: Executor,
  batchId: number,
  keywords: string | null | undefined,
  scope: Scope,
  page: PageRequest,
): Promise<Page<DistributeDetail>> {
  let q = detailsOf(db, batchId, scope);
  const kw = keywordsCondition(keywords, ['distribute_detail.park_name']);
  if (kw) q = q.where(kw);
  return paginate(db, q.orderBy('id'), page, toDetail);
}

export type ExportRecord = Pick<
  DistributeDetail,
  'id' | 'parkId' | 'parkName' | 'checkNum' | 'distributePercent' | 'distributeAmount'
>;

/** Keyset read of a batch's details in id order, with only the columns the export writes. */
export async function detailsAfter(
  db: Executor,
  batchId: number,
  scope: Scope,
  afterId: number | null,
  limit: number,
): Promise<ExportRecord[]> {
  let q = db
    .selectFrom('distribute_detail')
    .select(['id', 'park_id', 'park_name', 'check_num', 'distribute_percent', 'distribute_amount'])
    .where('batch_id', '=', batchId)
    .where(detailScope(scope));
  if (afterId !== null) q = q.where('id', '>', afterId);
  const rows = await q.orderBy('id').limit(limit).execute();
  return rows.map((r) => ({
    id: r.id,
    parkId: r.park_id,
    parkName: r.park_name,
    checkNum: r.check_num,
    distributePercent: Number(r.distribute_percent),
    distributeAmount: r.distribute_amount,
  }));
}

/** The scopes of one run: every (month, card model) of `months` × `cardModelIds` in `year`. */
export interface RunScopes {
  year: number;
  months: readonly number[];
  cardModelIds: readonly number[];
}

/**
 * Removes what the run's scopes hold, in three statements whatever their number: their living batches
 * become deleted (kept for the record), their details and ledger rows go. Answers the removed batch ids.
 */
export async function clearScopes(db: Executor, s: RunScopes, by: number): Promise<number[]> {
  if (s.months.length === 0 || s.cardModelIds.length === 0) return [];
  const removed = await db
    .updateTable('distribute_batch')
    .set({ is_deleted: true, updated_by: by, updated_at: new Date() })
    .where('year', '=', s.year)
    .where('month', 'in', [...s.months])
    .where('card_model_id', 'in', [...s.cardModelIds])
    .where('is_deleted', '=', false)
    .returning('id')
    .execute();
  const ids = removed.map((r) => r.id);
  if (ids.length)
    await db
      .deleteFrom('distribute_detail')
      .where(sql<SqlBool>`batch_id = any (${ids}::bigint[])`)
      .execute();
  await db
    .deleteFrom('deferred_revenue_ledger')
    .where('year', '=', s.year)
    .where('month', 'in', [...s.months])
    .where('card_model_id', 'in', [...s.cardModelIds])
    .execute();
  return ids;
}

const scopeKey = (year: number, month: number, cardModelId: number) => `${year}-${month}-${cardModelId}`;

/**
 * Inserts the batches of calculated scopes, their details and ledger rows: three statements whatever
 * their number, each row set passed as one array per column (a year of many card models costs what one
 * scope did). Answers the batches in the order of `results`, each found by its scope, which the scope
 * index keeps unique among living batches.
 */
export async function insertScopes(
  db: Executor,
  results: readonly ScopeResult[],
  run: { batchNo: (r: ScopeResult) => string; execTime: Date; execBy: number },
): Promise<DistributeBatch[]> {
  if (results.length === 0) return [];
  const col = <T>(f: (r: ScopeResult) => T) => results.map(f);
  const inserted = await sql<Selectable<DistributeBatchTable>>`
    insert into distribute_batch (batch_no, year, month, quarter, card_model_id, card_model_name, card_model_price,
      valid_user_count, total_distribute_amount, park_count, status, exec_time, exec_by, ratio, calc_mode, fixed_amount, created_by, updated_by)
    select b.batch_no, b.year, b.month, b.quarter, b.card_model_id, b.card_model_name, b.card_model_price,
      b.valid_user_count, b.total_distribute_amount, b.park_count, 1, ${run.execTime}, ${run.execBy}, b.ratio, b.calc_mode, b.fixed_amount, ${run.execBy}, ${run.execBy}
    from unnest(${col(run.batchNo)}::varchar[], ${col((r) => r.year)}::int[], ${col((r) => r.month)}::int[], ${col((r) => r.quarter)}::int[],
      ${col((r) => r.cardModelId)}::bigint[], ${col((r) => r.cardModelName)}::varchar[], ${col((r) => r.cardModelPrice)}::int[],
      ${col((r) => r.validUserCount)}::int[], ${col((r) => r.totalDistributeAmount)}::bigint[], ${col((r) => r.parkCount)}::int[],
      ${col((r) => r.ratio)}::int[], ${col((r) => r.calcMode)}::varchar[], ${col((r) => r.fixedAmount)}::bigint[])
      as b(batch_no, year, month, quarter, card_model_id, card_model_name, card_model_price, valid_user_count, total_distribute_amount, park_count, ratio, calc_mode, fixed_amount)
    returning *`.execute(db);
  const byScope = new Map(inserted.rows.map((row) => [scopeKey(row.year, row.month, Number(row.card_model_id)), row]));
  const batches = results.map((r) => {
    const row = byScope.get(scopeKey(r.year, r.month, r.cardModelId));
    if (!row) throw new Error(`the batch of ${scopeKey(r.year, r.month, r.cardModelId)} was not inserted`);
    return row;
  });

  const details = results.flatMap((r, i) => r.details.map((d) => ({ r, d, batchId: batches[i].id })));
  if (details.length) {
    const dcol = <T>(f: (x: (typeof details)[number]) => T) => details.map(f);
    await sql`
      insert into distribute_detail (batch_id, year, month, card_model_id, park_id, park_name, merchant_id, shop_id,
        check_num, distribute_percent, distribute_amount, created_by, updated_by)
      select d.batch_id, d.year, d.month, d.card_model_id, d.park_id, d.park_name, d.merchant_id, d.shop_id,
        d.check_num, d.distribute_percent, d.distribute_amount, ${run.execBy}, ${run.execBy}
      from unnest(${dcol((x) => x.batchId)}::bigint[], ${dcol((x) => x.r.year)}::int[], ${dcol((x) => x.r.month)}::int[],
        ${dcol((x) => x.r.cardModelId)}::bigint[], ${dcol((x) => x.d.parkId)}::bigint[], ${dcol((x) => x.d.parkName)}::varchar[],
        ${dcol((x) => x.d.merchantId)}::bigint[], ${dcol((x) => x.d.shopId)}::bigint[], ${dcol((x) => x.d.checkNum)}::bigint[],
        ${dcol((x) => x.d.distributePercent)}::numeric[], ${dcol((x) => x.d.distributeAmount)}::bigint[])
        as d(batch_id, year, month, card_model_id, park_id, park_name, merchant_id, shop_id, check_num, distribute_percent, distribute_amount)`.execute(
      db,
    );
  }

  await sql`
    insert into deferred_revenue_ledger (year, month, card_model_id, batch_id, recognised_amount, distributed_amount, created_by, updated_by)
    select l.year, l.month, l.card_model_id, l.batch_id, l.recognised_amount, l.distributed_amount, ${run.execBy}, ${run.execBy}
    from unnest(${col((r) => r.year)}::int[], ${col((r) => r.month)}::int[], ${col((r) => r.cardModelId)}::bigint[], ${batches.map((b) => b.id)}::bigint[],
      ${col((r) => r.totalDistributeAmount)}::bigint[], ${col((r) => r.details.reduce((sum, d) => sum + d.distributeAmount, 0))}::bigint[])
      as l(year, month, card_model_id, batch_id, recognised_amount, distributed_amount)`.execute(db);
  return batches.map(toBatch);
}

/** Marks one batch deleted and removes its details and its month's ledger row for its card model. */
export async function deleteBatch(
  db: Executor,
  b: { id: number; year: number; month: number; cardModelId: number },
  by: number,
): Promise<void> {
  await db
    .updateTable('distribute_batch')
    .set({ is_deleted: true, updated_by: by, updated_at: new Date() })
    .where('id', '=', b.id)
    .execute();
  await db.deleteFrom('distribute_detail').where('batch_id', '=', b.id).execute();
  await db
    .deleteFrom('deferred_revenue_ledger')
    .where('year', '=', b.year)
    .where('month', '=', b.month)
    .where('card_model_id', '=', b.cardModelId)
    .execute();
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
