import { sql } from 'kysely';
import type { Executor } from '../../platform/db/executor.js';

/**
 * The reads of the settlement calculation (docs/domain.md §3), each one aggregate computed by the
 * database over the card model's checks in the period: rules with their resources, check counts
 * per resource, way-1 check counts and amounts per dated price period, and way-5 allocation sums.
 */

export interface CalcPeriod {
  cardModelId: number;
  start: Date;
  /** inclusive */
  end: Date;
  /** only checks with id ≤ this (checkWatermark): the snapshot of the checks stays the counted set */
  maxCheckId: number;
}

export interface RuleRow {
  resourceId: number;
  sceneryName: string;
  merchantId: number;
  shopId: number;
  settlementWay: number;
  buyoutAmount: number | null;
  /** exact text, e.g. "12.5000" */
  sharePercent: string | null;
}

export interface PriceSegmentRow {
  resourceId: number;
  startDate: string;
  endDate: string;
  price: number;
  settlementFactor: string;
  checkNum: number;
  ticketTotalAmount: number;
  settlementAmount: number;
}

const num = (v: unknown) => Number(v);

/** The card model's living rules with their (living) resources, by resource id. */
export async function rulesOf(db: Executor, cardModelId: number): Promise<RuleRow[]> {
  const r = await sql<{
    resource_id: number;
    scenery_name: string;
    merchant_id: number;
    shop_id: number;
    settlement_way: number;
    buyout_amount: number | string | null;
    share_percent: string | null;
  }>`
    select r.resource_id, s.name as scenery_name, s.merchant_id, s.shop_id, r.settlement_way, r.buyout_amount, r.share_percent::text as share_percent
    from card_model_resource_rule r
    join spu s on s.id = r.resource_id and not s.is_deleted
    where r.card_model_id = ${cardModelId} and not r.is_deleted
    order by r.resource_id`.execute(db);
  return r.rows.map((x) => ({
    resourceId: num(x.resource_id),
    sceneryName: x.scenery_name,
    merchantId: num(x.merchant_id),
    shopId: num(x.shop_id),
    settlementWay: num(x.settlement_way),
    buyoutAmount: x.buyout_amount === null ? null : num(x.buyout_amount),
    sharePercent: x.share_percent,
  }));
}

/** Σ consume_num of the model's living checks per resource within [start, end]. */
export async function checkCounts(db: Executor, p: CalcPeriod, resourceIds: number[]): Promise<Map<number, number>> {
  if (resourceIds.length === 0) return new Map();
  const r = await sql<{ resource_id: number; n: string | number }>`
    select resource_id, sum(consume_num) as n from card_check
    where card_model_id = ${p.cardModelId} and resource_id = any (${resourceIds}::bigint[])
      and check_time >= ${p.start} and check_time <= ${p.end} and not is_deleted and id <= ${p.maxCheckId}
    group by resource_id`.execute(db);
  return new Map(r.rows.map((x) => [num(x.resource_id), num(x.n)]));
}

/**
 * Way 1: for each dated price period of a rule overlapping the period (clipped to it), the checks
 * whose day falls in it, price × checks and round(price × checks × factor), all exact in numeric;
 * checks on days no price period covers form one more segment at the rule's buy_price and factor,
 * dated by their first and last day. Segments ordered by resource and start day.
 */
export async function priceSegments(
  db: Executor,
  p: CalcPeriod,
  startDay: string,
  endDay: string,
): Promise<PriceSegmentRow[]> {
  const r = await sql<{
    resource_id: number;
    start_date: string;
    end_date: string;
    price: number | string;
    settlement_factor: string;
    check_num: string | number;
    ticket_total: string | number;
    amount: string | number;
  }>`
    with rules as (
      select r.id, r.resource_id, coalesce(r.buy_price, 0) as buy_price, r.settlement_factor
      from card_model_resource_rule r
      join spu s on s.id = r.resource_id and not s.is_deleted
      where r.card_model_id = ${p.cardModelId} and r.settlement_way = 1 and not r.is_deleted
    ), days as (
      select c.resource_id, c.check_date, sum(c.consume_num) as n
      from card_check c
      where c.card_model_id = ${p.cardModelId} and c.resource_id in (select resource_id from rules)
        and c.check_time >= ${p.start} and c.check_time <= ${p.end} and not c.is_deleted and c.id <= ${p.maxCheckId}
      group by c.resource_id, c.check_date
    ), periods as (
      select r.resource_id, greatest(pr.start_date, ${startDay}::date) as sd, least(pr.end_date, ${endDay}::date) as ed,
             pr.price, pr.settlement_factor
      from rules r join card_model_resource_price pr on pr.rule_id = r.id
      where pr.start_date <= ${endDay}::date and pr.end_date >= ${startDay}::date
    ), dated as (
      select pe.resource_id, pe.sd, pe.ed, pe.price, pe.settlement_factor, coalesce(sum(d.n), 0) as check_num
      from periods pe left join days d on d.resource_id = pe.resource_id and d.check_date between pe.sd and pe.ed
      group by pe.resource_id, pe.sd, pe.ed, pe.price, pe.settlement_factor
    ), undated as (
      select r.resource_id, min(d.check_date) as sd, max(d.check_date) as ed, r.buy_price as price, r.settlement_factor, sum(d.n) as check_num
      from rules r join days d on d.resource_id = r.resource_id
      where not exists (
        select 1 from card_model_resource_price pr where pr.rule_id = r.id and d.check_date between pr.start_date and pr.end_date)
      group by r.resource_id, r.buy_price, r.settlement_factor
    )
    select resource_id, sd::text as start_date, ed::text as end_date, price, settlement_factor::text as settlement_factor, check_num,
           price::numeric * check_num as ticket_total, round(price::numeric * check_num * settlement_factor) as amount
    from (select * from dated union all select * from undated) seg
    order by resource_id, sd`.execute(db);
  return r.rows.map((x) => ({
    resourceId: num(x.resource_id),
    startDate: x.start_date,
    endDate: x.end_date,
    price: num(x.price),
    settlementFactor: x.settlement_factor,
    checkNum: num(x.check_num),
    ticketTotalAmount: num(x.ticket_total),
    settlementAmount: num(x.amount),
  }));
}

/**
 * Way 5: Σ of each park's allocation details for the model over the months [fromMonth, toMonth]
 * (year × 12 + month − 1), from living batches only.
 */
export async function allocationSums(
  db: Executor,
  cardModelId: number,
  fromMonth: number,
  toMonth: number,
  parkIds: number[],
): Promise<Map<number, number>> {
  if (parkIds.length === 0) return new Map();
  const r = await sql<{ park_id: number; amount: string | number }>`
    select d.park_id, sum(d.distribute_amount) as amount
    from distribute_detail d
    join distribute_batch b on b.id = d.batch_id and not b.is_deleted
    where d.card_model_id = ${cardModelId} and d.park_id = any (${parkIds}::bigint[])
      and d.year * 12 + d.month - 1 between ${fromMonth} and ${toMonth}
    group by d.park_id`.execute(db);
  return new Map(r.rows.map((x) => [num(x.park_id), num(x.amount)]));
}

/** The highest check id now: snapshots taken later read only the checks a calculation saw. */
export async function checkWatermark(db: Executor): Promise<number> {
  const r = await sql<{ m: string | number | null }>`select max(id) as m from card_check`.execute(db);
  return num(r.rows[0]?.m ?? 0);
}
