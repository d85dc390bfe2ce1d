import { SettlementStatus } from './settlement-status.js';
import { sql, type Expression, type Selectable, type SqlBool } from 'kysely';
import type { SettlementTable } from '../../db/tables/settlement.js';
import type { Scope } from '../../platform/auth/permissions.js';
import type { Executor } from '../../platform/db/executor.js';
import { paginate } from '../../platform/db/paginate.js';
import { containsPattern, keywordsCondition } from '../../platform/db/text-match.js';
import type { Page, PageRequest } from '../../platform/http/paging.js';
import { formatDateTime } from '../../platform/time.js';
import type { ResourceDetail } from './settlement-calc.js';
import { insertDetails } from './settlement-detail.repository.js';
import type { SettlementPageQuery, SettlementSummary } from './settlement.schemas.js';

/** Settlement orders, their payments, log and the merchants' finance accounts; details: settlement-detail.repository. */

/** What an estimation sheet and a settlement order both state of their card model's period. Money in cents. */
export interface PeriodFigures {
  cardModelId: number;
  cardModelName: string;
  startTime: Date;
  endTime: Date;
  issueNum: number;
  profit: number;
  totalAmount: number;
  checkNum: number;
}

type PeriodColumns = Pick<
  Selectable<SettlementTable>,
  | 'card_model_id'
  | 'card_model_name'
  | 'start_time'
  | 'end_time'
  | 'issue_num'
  | 'profit'
  | 'total_amount'
  | 'check_num'
>;

/** The period figures of a settlement or estimation_sheet row (the two tables share these columns). */
export function toPeriodFigures(r: PeriodColumns): PeriodFigures {
  return {
    cardModelId: r.card_model_id,
    cardModelName: r.card_model_name,
    startTime: r.start_time,
    endTime: r.end_time,
    issueNum: r.issue_num,
    profit: Number(r.profit),
    totalAmount: Number(r.total_amount),
    checkNum: Number(r.check_num),
  };
}

/** A settlement order. Money in cents. */
export interface SettlementRecord extends PeriodFigures {
  id: number;
  settlementNo: string;
  estimationId: number | null;
  settlementMerchantId: number;
  settlementMerchantName: string;
  settlementStatus: number;
  settlementFiles: string | null;
  remark: string | null;
  paidAmount: number;
  createdAt: Date;
}

/** What a status move may write besides the status. */
export type MoveValues = Partial<{
  settlementFiles: string;
  remark: string | null;
  paidAmount: number;
  afreshBy: number;
  afreshTime: Date;
}>;

function toSettlement(r: Selectable<SettlementTable>): SettlementRecord {
  return {
    id: r.id,
    settlementNo: r.settlement_no,
    estimationId: r.estimation_id,
    settlementMerchantId: r.settlement_merchant_id,
    settlementMerchantName: r.settlement_merchant_name,
    settlementStatus: r.settlement_status,
    settlementFiles: r.settlement_files,
    remark: r.remark,
    paidAmount: Number(r.paid_amount),
    createdAt: r.created_at,
    // last: fields after a spread make V8 build each object a map of its own (docs/adr/0079-objects-built-by-spreading-avoided-in-hot-code.md)
    ...toPeriodFigures(r),
  };
}

// Only the keys given: a key left out keeps its column, as it did when the caller passed columns.
function moveColumns(v: MoveValues) {
  return {
    ...('settlementFiles' in v ? { settlement_files: v.settlementFiles } : {}),
    ...('remark' in v ? { remark: v.remark } : {}),
    ...('paidAmount' in v ? { paid_amount: v.paidAmount } : {}),
    ...('afreshBy' in v ? { afresh_by: v.afreshBy } : {}),
    ...('afreshTime' in v ? { afresh_time: v.afreshTime } : {}),
  };
}

export const periodText = (start: Date, end: Date) => `${formatDateTime(start)} ~ ${formatDateTime(end)}`;

export function toSummary(r: SettlementRecord): SettlementSummary {
  return {
    id: r.id,
    settlementNo: r.settlementNo,
    estimationId: r.estimationId,
    cardModelId: r.cardModelId,
    cardModelName: r.cardModelName,
    settlementPeriod: periodText(r.startTime, r.endTime),
    startTime: formatDateTime(r.startTime)!,
    endTime: formatDateTime(r.endTime)!,
    totalAmount: r.totalAmount,
    profit: r.profit,
    issueNum: r.issueNum,
    checkNum: r.checkNum,
    settlementStatus: r.settlementStatus,
    settlementFiles: r.settlementFiles,
    settlementMerchantId: r.settlementMerchantId,
    settlementMerchantName: r.settlementMerchantName,
    paidAmount: r.paidAmount,
    remark: r.remark,
    createdTime: formatDateTime(r.createdAt),
  };
}

/** Orders a merchant or shop user may see: its merchant's; for a shop, those with a detail of its shop. */
function scopeCondition(scope: Scope): Expression<SqlBool> {
  if (scope.kind === 'platform') return sql<SqlBool>`true`;
  const merchant = sql<SqlBool>`settlement.settlement_merchant_id = ${scope.merchantId}`;
  if (scope.kind === 'merchant') return merchant;
  return sql<SqlBool>`(${merchant} and exists (select 1 from settlement_detail d where d.settlement_id = settlement.id and d.shop_id = ${scope.shopId}))`;
}

export async function findSettlement(db: Executor, id: number): Promise<SettlementRecord | null> {
  const r = await db.selectFrom('settlement').selectAll().where('id', '=', id).executeTakeFirst();
  return r ? toSettlement(r) : null;
}

export async function visibleTo(db: Executor, id: number, scope: Scope): Promise<boolean> {
  const r = await db
    .selectFrom('settlement')
    .select('id')
    .where('id', '=', id)
    .where(scopeCondition(scope))
    .executeTakeFirst();
  return r !== undefined;
}

export interface NewSettlement {
  settlementNo: string;
  estimationId: number | null;
  cardModelId: number;
  cardModelName: string;
  start: Date;
  end: Date;
  issueNum: number;
  profit: number;
  merchantId: number;
  merchantName: string;
}

/** An order at status 1 with its details; totals are the sums of the details. Answers the order and detail ids by resource. */
export async function insertSettlement(
  db: Executor,
  s: NewSettlement,
  details: ResourceDetail[],
  by: number,
): Promise<{ id: number; detailIds: Map<number, number> }> {
  const { id } = await db
    .insertInto('settlement')
    .values({
      settlement_no: s.settlementNo,
      estimation_id: s.estimationId,
      card_model_id: s.cardModelId,
      card_model_name: s.cardModelName,
      start_time: s.start,
      end_time: s.end,
      issue_num: s.issueNum,
      profit: s.profit,
      total_amount: details.reduce((sum, d) => sum + d.settlementAmountActual, 0),
      check_num: details.reduce((sum, d) => sum + d.checkNum, 0),
      settlement_merchant_id: s.merchantId,
      settlement_merchant_name: s.merchantName,
      settlement_status: SettlementStatus.PENDING_SPOT_CHECK,
      created_by: by,
      updated_by: by,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id, detailIds: await insertDetails(db, id, details, by) };
}

/** The order's totals set to the sums of its details, in SQL; answers the new total amount. */
export async function refreshTotals(db: Executor, id: number, by: number): Promise<number> {
  const r = await sql<{ total: string | number }>`
    update settlement set
      total_amount = coalesce((select sum(settlement_amount_actual) from settlement_detail where settlement_id = ${id}), 0),
      check_num = coalesce((select sum(check_num) from settlement_detail where settlement_id = ${id}), 0),
      updated_by = ${by}, updated_at = now()
    where id = ${id}
    returning total_amount as total`.execute(db);
  return Number(r.rows[0]?.total ?? 0);
}

/**
 * The state move itself: one conditional UPDATE, so of two racing moves exactly one finds the order
 * in the `from` state. `to` null keeps the status (afresh). Answers the updated order, or null when it
 * was not in `from`.
 */
export async function moveStatus(
  db: Executor,
  id: number,
  from: readonly number[],
  to: number | null,
  set: MoveValues,
  by: number,
): Promise<SettlementRecord | null> {
  const r = await db
    .updateTable('settlement')
    .set({
      ...moveColumns(set),
      ...(to === null ? {} : { settlement_status: to }),
      updated_by: by,
      updated_at: new Date(),
    })
    .where('id', '=', id)
    .where('settlement_status', 'in', [...from])
    .returningAll()
    .executeTakeFirst();
  return r ? toSettlement(r) : null;
}

export async function insertLog(
  db: Executor,
  s: { id: number; settlementNo: string },
  action: string,
  from: number | null,
  to: number | null,
  remark: string | null,
  by: number,
): Promise<void> {
  await db
    .insertInto('settlement_log')
    .values({
      settlement_id: s.id,
      settlement_no: s.settlementNo,
      action,
      from_status: from,
      to_status: to,
      remark,
      account_id: by,
    })
    .execute();
}

export async function insertPayment(
  db: Executor,
  settlementId: number,
  amount: number,
  voucher: string | null,
  by: number,
): Promise<void> {
  await db
    .insertInto('settlement_payment')
    .values({ settlement_id: settlementId, amount, voucher, paid_by: by, created_by: by, updated_by: by })
    .execute();
}

/** The order, its details, check details and payments; the log stays. Answers false when it was gone. */
export async function deleteSettlement(db: Executor, id: number): Promise<boolean> {
  await db.deleteFrom('settlement_check_detail').where('settlement_id', '=', id).execute();
  await db.deleteFrom('settlement_payment').where('settlement_id', '=', id).execute();
  await db.deleteFrom('settlement_detail').where('settlement_id', '=', id).execute();
  const r = await db.deleteFrom('settlement').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

export function pageSettlements(
  db: Executor,
  f: SettlementPageQuery,
  period: { start: Date; end: Date } | null,
  scope: Scope,
  page: PageRequest,
): Promise<Page<SettlementSummary>> {
  let q = db.selectFrom('settlement').selectAll().where(scopeCondition(scope));
  if (f.settlementStatus != null) q = q.where('settlement_status', '=', f.settlementStatus);
  if (f.cardModelId != null) q = q.where('card_model_id', '=', f.cardModelId);
  if (f.cardModelName?.trim()) q = q.where('card_model_name', 'ilike', containsPattern(f.cardModelName.trim()));
  if (f.settlementMerchantId != null) q = q.where('settlement_merchant_id', '=', f.settlementMerchantId);
  if (f.settlementNo?.trim()) q = q.where('settlement_no', '=', f.settlementNo.trim());
  if (f.estimationId != null) q = q.where('estimation_id', '=', f.estimationId);
  // Orders whose period overlaps the filter's.
  if (period) q = q.where('start_time', '<=', period.end).where('end_time', '>=', period.start);
  const kw = keywordsCondition(f.keywords, [
    'settlement.settlement_no',
    'settlement.card_model_name',
    'settlement.settlement_merchant_name',
  ]);
  if (kw) q = q.where(kw);
  return paginate(db, q.orderBy('id', 'desc'), page, (r) => toSummary(toSettlement(r)));
}

export async function merchantNames(db: Executor, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('merchant').select(['id', 'name']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}
