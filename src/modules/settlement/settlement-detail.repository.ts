import { SettlementStatus } from './settlement-status.js';
import type { Selectable } from 'kysely';
import type { SettlementDetailTable } from '../../db/tables/settlement.js';
import type { Executor } from '../../platform/db/executor.js';
import type { ResourceDetail } from './settlement-calc.js';
import type { DetailResponse } from './settlement.schemas.js';

/** The details of settlement orders; the column set and its mapping are shared with estimation_detail. */

/**
 * A stored detail, of an estimation sheet or a settlement order: a computed ResourceDetail as kept,
 * whose resource may have lost its merchant or shop since. Money in cents.
 */
export interface DetailRecord extends Omit<ResourceDetail, 'merchantId' | 'shopId'> {
  id: number;
  merchantId: number | null;
  shopId: number | null;
}

export interface SettlementDetailRecord extends DetailRecord {
  settlementId: number;
}

/** The columns estimation_detail and settlement_detail have in common. */
export type DetailColumnsRow = Omit<Selectable<SettlementDetailTable>, 'settlement_id'>;

/**
 * The factor comes back as numeric(10, 4) text; as a number it is exact enough that toFixed(4) gives
 * the stored text back (at most 10 significant digits), so actualAmount computes the same from either.
 */
export function toDetailRecord(r: DetailColumnsRow): DetailRecord {
  return {
    id: r.id,
    resourceId: r.resource_id,
    sceneryName: r.scenery_name,
    merchantId: r.merchant_id,
    shopId: r.shop_id,
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

const toSettlementDetail = (r: Selectable<SettlementDetailTable>): SettlementDetailRecord =>
  Object.assign(toDetailRecord(r), { settlementId: r.settlement_id });

/** A detail (stored, or computed and not yet stored) on the wire. */
export function toDetail(d: DetailRecord, cardModelName: string, period: string): DetailResponse {
  return {
    id: d.id,
    cardModelName,
    estimationPeriod: period,
    resourceId: d.resourceId,
    sceneryName: d.sceneryName,
    merchantId: d.merchantId,
    settlementWay: String(d.settlementWay),
    checkNum: d.checkNum,
    ticketPriceInfo: d.ticketPriceInfo,
    estimationFactor: d.estimationFactor,
    settlementAmount: d.settlementAmount,
    increaseAmount: d.increaseAmount,
    decreaseAmount: d.decreaseAmount,
    settlementAmountActual: d.settlementAmountActual,
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

export async function detailRows(db: Executor, settlementId: number): Promise<SettlementDetailRecord[]> {
  const rows = await db
    .selectFrom('settlement_detail')
    .selectAll()
    .where('settlement_id', '=', settlementId)
    .orderBy('resource_id')
    .execute();
  return rows.map(toSettlementDetail);
}

/**
 * The part of an estimation's unified pool (way 4) that its other orders hold, voided ones aside:
 * what a recalculation of one order may not take again.
 */
export async function way4HeldByOthers(
  db: Executor,
  estimationId: number,
  exceptSettlementId: number,
): Promise<bigint> {
  const r = await db
    .selectFrom('settlement_detail as d')
    .innerJoin('settlement as s', 's.id', 'd.settlement_id')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<string>('d.settlement_amount'), eb.lit(0)).as('held'))
    .where('s.estimation_id', '=', estimationId)
    .where('s.id', '<>', exceptSettlementId)
    .where('s.settlement_status', '<>', SettlementStatus.VOIDED)
    .where('d.settlement_way', '=', 4)
    .executeTakeFirstOrThrow();
  return BigInt(r.held);
}

export async function findDetail(db: Executor, id: number): Promise<SettlementDetailRecord | null> {
  const r = await db.selectFrom('settlement_detail').selectAll().where('id', '=', id).executeTakeFirst();
  return r ? toSettlementDetail(r) : null;
}

/** Details of an order; answers the new detail id of each resource. */
export async function insertDetails(
  db: Executor,
  settlementId: number,
  details: ResourceDetail[],
  by: number,
): Promise<Map<number, number>> {
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
export async function updateDetailFigures(
  db: Executor,
  id: number,
  d: ResourceDetail,
  actual: number,
  by: number,
): Promise<void> {
  await db
    .updateTable('settlement_detail')
    .set({
      scenery_name: d.sceneryName,
      settlement_way: d.settlementWay,
      check_num: d.checkNum,
      ticket_price_info: JSON.stringify(d.ticketPriceInfo),
      settlement_amount: d.settlementAmount,
      settlement_amount_actual: actual,
      updated_by: by,
      updated_at: new Date(),
    })
    .where('id', '=', id)
    .execute();
}

export async function adjustDetail(
  db: Executor,
  id: number,
  v: { factor: number; increase: number; decrease: number; actual: number },
  by: number,
): Promise<void> {
  await db
    .updateTable('settlement_detail')
    .set({
      estimation_factor: v.factor,
      increase_amount: v.increase,
      decrease_amount: v.decrease,
      settlement_amount_actual: v.actual,
      updated_by: by,
      updated_at: new Date(),
    })
    .where('id', '=', id)
    .execute();
}
