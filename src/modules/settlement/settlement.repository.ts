import { sql, type Expression, type Selectable, type SqlBool } from 'kysely';
import type { MerchantFinanceTable, SettlementDetailTable, SettlementTable } from '../../db/tables/settlement.js';
import type { Scope } from '../../platform/auth/permissions.js';
import type { Executor } from '../../platform/db/executor.js';
import { paginate } from '../../platform/db/paginate.js';
import { containsPattern, keywordsCondition } from '../../platform/db/text-match.js';
import type { Page, PageRequest } from '../../platform/http/paging.js';
import { formatDateTime } from '../../platform/time.js';
import type { ResourceDetail } from './settlement-calc.js';
import type { DetailResponse, MerchantFinance, SettlementPageQuery, SettlementSummary } from './settlement.schemas.js';

/** Settlement orders, their details, payments, log and the merchants' finance accounts. */

export type SettlementRow = Selectable<SettlementTable>;
export type DetailRow = Selectable<SettlementDetailTable>;

export const periodText = (start: Date, end: Date) => `${formatDateTime(start)} ~ ${formatDateTime(end)}`;

export function toSummary(r: SettlementRow): SettlementSummary {
  return {
    id: r.id,
    settlementNo: r.settlement_no,
    estimationId: r.estimation_id,
    cardModelId: r.card_model_id,
    cardModelName: r.card_model_name,
    settlementPeriod: periodText(r.start_time, r.end_time),
    startTime: formatDateTime(r.start_time)!,
    endTime: formatDateTime(r.end_time)!,
    totalAmount: Number(r.total_amount),
    profit: Number(r.profit),
    issueNum: r.issue_num,
    checkNum: Number(r.check_num),
    settlementStatus: r.settlement_status,
    settlementFiles: r.settlement_files,
    settlementMerchantId: r.settlement_merchant_id,
    settlementMerchantName: r.settlement_merchant_name,
    paidAmount: Number(r.paid_amount),
    remark: r.remark,
    createdTime: formatDateTime(r.created_at),
  };
}

/** A stored detail (estimation or settlement) on the wire. */
export function toDetail(r: Omit<DetailRow, 'settlement_id'>, cardModelName: string, period: string, id = r.id): DetailResponse {
  return {
    id,
    cardModelName,
    estimationPeriod: period,
    resourceId: r.resource_id,
    sceneryName: r.scenery_name,
    merchantId: r.merchant_id,
    settlementWay: r.settlement_way,
    checkNum: Number(r.check_num),
    ticketPriceInfo: r.ticket_price_info,
    estimationFactor: Number(r.estimation_factor),
    settlementAmount: Number(r.settlement_amount),
    increaseAmount: Number(r.increase_amount),
    decreaseAmount: Number(r.decrease_amount),
    settlementAmountActual: Number(r.settlement_amount_actual),
  };
}

/** Columns of a computed detail, for estimation_detail and settlement_detail alike. */
export function detailColumns(d: ResourceDetail, by: number) {
  return {
    resource_id: d.resourceId,
    scenery_name: d.sceneryName,
    merchant_id: d.merchantId,
    shop_id: d.shopId,
    settlement_way: d.settlementWay,
    check_num: d.checkNum,
    ticket_price_info: JSON.stringify(d.ticketPriceInfo),
    estimation_factor: d.estimationFactor,
    settlement_amount: d.settlementAmount,
    increase_amount: d.increaseAmount,
    decrease_amount: d.decreaseAmount,
    settlement_amount_actual: d.settlementAmountActual,
    created_by: by,
    updated_by: by,
  };
}

/** Orders a merchant or shop user may see: its merchant's; for a shop, those with a detail of its shop. */
function scopeCondition(scope: Scope): Expression<SqlBool> {
  if (scope.kind === 'platform') return sql<SqlBool>`true`;
  const merchant = sql<SqlBool>`settlement.settlement_merchant_id = ${scope.merchantId}`;
  if (scope.kind === 'merchant') return merchant;
  return sql<SqlBool>`(${merchant} and exists (select 1 from settlement_detail d where d.settlement_id = settlement.id and d.shop_id = ${scope.shopId}))`;
}

export async function findSettlement(db: Executor, id: number): Promise<SettlementRow | null> {
  return (await db.selectFrom('settlement').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
}

export async function visibleTo(db: Executor, id: number, scope: Scope): Promise<boolean> {
  const r = await db.selectFrom('settlement').select('id').where('id', '=', id).where(scopeCondition(scope)).executeTakeFirst();
  return r !== undefined;
}

export function detailRows(db: Executor, settlementId: number): Promise<DetailRow[]> {
  return db.selectFrom('settlement_detail').selectAll().where('settlement_id', '=', settlementId).orderBy('resource_id').execute();
}

export async function findDetail(db: Executor, id: number): Promise<DetailRow | null> {
  return (await db.selectFrom('settlement_detail').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
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
export async function insertSettlement(db: Executor, s: NewSettlement, details: ResourceDetail[], by: number): Promise<{ id: number; detailIds: Map<number, number> }> {
  const { id } = await db
    .insertInto('settlement')
    .values({
      settlement_no: s.settlementNo, estimation_id: s.estimationId, card_model_id: s.cardModelId, card_model_name: s.cardModelName,
      start_time: s.start, end_time: s.end, issue_num: s.issueNum, profit: s.profit,
      total_amount: details.reduce((sum, d) => sum + d.settlementAmountActual, 0),
      check_num: details.reduce((sum, d) => sum + d.checkNum, 0),
      settlement_merchant_id: s.merchantId, settlement_merchant_name: s.merchantName, settlement_status: 1,
      created_by: by, updated_by: by,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id, detailIds: await insertDetails(db, id, details, by) };
}

/** Details of an order; answers the new detail id of each resource. */
export async function insertDetails(db: Executor, settlementId: number, details: ResourceDetail[], by: number): Promise<Map<number, number>> {
  const detailIds = new Map<number, number>();
  if (details.length === 0) return detailIds;
  const rows = await db
    .insertInto('settlement_detail')
    .values(details.map((d) => ({ ...detailColumns(d, by), settlement_id: settlementId })))
    .returning(['id', 'resource_id'])
    .execute();
  for (const r of rows) detailIds.set(r.resource_id, r.id);
  return detailIds;
}

/** A recomputed detail's figures; the platform's adjustments (factor, increase, decrease) are kept. */
export async function updateDetailFigures(db: Executor, id: number, d: ResourceDetail, actual: number, by: number): Promise<void> {
  await db
    .updateTable('settlement_detail')
    .set({
      scenery_name: d.sceneryName, settlement_way: d.settlementWay, check_num: d.checkNum,
      ticket_price_info: JSON.stringify(d.ticketPriceInfo), settlement_amount: d.settlementAmount,
      settlement_amount_actual: actual, updated_by: by, updated_at: new Date(),
    })
    .where('id', '=', id)
    .execute();
}

export async function adjustDetail(db: Executor, id: number, v: { factor: number; increase: number; decrease: number; actual: number }, by: number): Promise<void> {
  await db
    .updateTable('settlement_detail')
    .set({ estimation_factor: v.factor, increase_amount: v.increase, decrease_amount: v.decrease, settlement_amount_actual: v.actual, updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

/** The order's totals set to the sums of its details, in SQL. */
export async function refreshTotals(db: Executor, id: number, by: number): Promise<void> {
  await sql`
    update settlement set
      total_amount = coalesce((select sum(settlement_amount_actual) from settlement_detail where settlement_id = ${id}), 0),
      check_num = coalesce((select sum(check_num) from settlement_detail where settlement_id = ${id}), 0),
      updated_by = ${by}, updated_at = now()
    where id = ${id}`.execute(db);
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
  set: Partial<{ settlement_files: string; remark: string | null; paid_amount: number; afresh_by: number; afresh_time: Date }>,
  by: number,
): Promise<SettlementRow | null> {
  const r = await db
    .updateTable('settlement')
    .set({ ...set, ...(to === null ? {} : { settlement_status: to }), updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .where('settlement_status', 'in', [...from])
    .returningAll()
    .executeTakeFirst();
  return r ?? null;
}

export async function insertLog(db: Executor, s: { id: number; settlementNo: string }, action: string, from: number | null, to: number | null, remark: string | null, by: number): Promise<void> {
  await db
    .insertInto('settlement_log')
    .values({ settlement_id: s.id, settlement_no: s.settlementNo, action, from_status: from, to_status: to, remark, account_id: by })
    .execute();
}

export async function insertPayment(db: Executor, settlementId: number, amount: number, voucher: string | null, by: number): Promise<void> {
  await db.insertInto('settlement_payment').values({ settlement_id: settlementId, amount, voucher, paid_by: by, created_by: by, updated_by: by }).execute();
}

/** The order, its details, check details and payments; the log stays. Answers false when it was gone. */
export async function deleteSettlement(db: Executor, id: number): Promise<boolean> {
  await db.deleteFrom('settlement_check_detail').where('settlement_id', '=', id).execute();
  await db.deleteFrom('settlement_payment').where('settlement_id', '=', id).execute();
  await db.deleteFrom('settlement_detail').where('settlement_id', '=', id).execute();
  const r = await db.deleteFrom('settlement').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

export function pageSettlements(db: Executor, f: SettlementPageQuery, period: { start: Date; end: Date } | null, scope: Scope, page: PageRequest): Promise<Page<SettlementSummary>> {
  let q = db.selectFrom('settlement').selectAll().where(scopeCondition(scope));
  if (f.settlementStatus != null) q = q.where('settlement_status', '=', f.settlementStatus);
  if (f.cardModelId != null) q = q.where('card_model_id', '=', f.cardModelId);
  if (f.cardModelName?.trim()) q = q.where('card_model_name', 'ilike', containsPattern(f.cardModelName.trim()));
  if (f.settlementMerchantId != null) q = q.where('settlement_merchant_id', '=', f.settlementMerchantId);
  if (f.settlementNo?.trim()) q = q.where('settlement_no', '=', f.settlementNo.trim());
  if (f.estimationId != null) q = q.where('estimation_id', '=', f.estimationId);
  // Orders whose period overlaps the filter's.
  if (period) q = q.where('start_time', '<=', period.end).where('end_time', '>=', period.start);
  const kw = keywordsCondition(f.keywords, ['settlement.settlement_no', 'settlement.card_model_name', 'settlement.settlement_merchant_name']);
  if (kw) q = q.where(kw);
  return paginate(q.orderBy('id', 'desc'), page, toSummary);
}

function toFinance(r: Selectable<MerchantFinanceTable>): MerchantFinance {
  return {
    id: r.id,
    shopId: r.shop_id,
    merchantId: r.merchant_id,
    ebankType: r.ebank_type,
    name: r.name,
    bank: r.bank,
    bankAccount: r.bank_account,
    isDeleted: r.is_deleted,
    createdBy: r.created_by === null ? null : String(r.created_by),
    createdTime: formatDateTime(r.created_at),
    updatedBy: r.updated_by === null ? null : String(r.updated_by),
    updatedTime: formatDateTime(r.updated_at),
  };
}

/** The merchant's living merchant-settlement account (ebankType 1), the newest when several. */
export async function financeOf(db: Executor, merchantId: number): Promise<MerchantFinance | null> {
  const r = await db
    .selectFrom('merchant_finance')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('ebank_type', '=', 1)
    .where('is_deleted', '=', false)
    .orderBy('id', 'desc')
    .executeTakeFirst();
  return r ? toFinance(r) : null;
}

export async function merchantNames(db: Executor, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('merchant').select(['id', 'name']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}
