import { sql, type Expression, type SqlBool } from 'kysely';
import type { Scope } from '../../platform/auth/permissions.js';
import type { Executor } from '../../platform/db/executor.js';
import { scopeCondition } from '../../platform/db/scope.js';

/**
 * Admissions per scenic spot (issue 39): the entries (consume_num) of the living checks at a SKU. For
 * a spot with a capacity the check-in statement keeps them in spot_admission_count (slot_minute -1:
 * the day), exact on any number of instances; that row is read when it exists, else the checks,
 * through card_check_sku_time_idx (sku_id, check_time) with check_time bounded to the day, so one
 * month partition is read (docs/adr/0100-history-tables-partitioned-by-month.md).
 */

/** A service-zone day: its date and its instants [start, end). */
export interface Day {
  date: string;
  start: Date;
  end: Date;
}

export interface SpotRow {
  skuId: number;
  skuName: string;
  merchantId: number;
  shopId: number | null;
  /** a spot_capacity row exists (possibly with only slot capacities) */
  hasCapacity: boolean;
  dailyCapacity: number | null;
  admitted: number;
}

export interface SlotRow {
  skuId: number;
  startMinute: number;
  endMinute: number;
  capacity: number;
  admitted: number;
}

export interface MinuteRow {
  skuId: number;
  minute: Date;
  admitted: number;
}

const idsCondition = (column: string, ids: number[] | null): Expression<SqlBool> =>
  ids === null ? sql<SqlBool>`true` : sql<SqlBool>`${sql.ref(column)} = any(${ids}::bigint[])`;

/** The day's entries at spot `s.id`: its day counter, else its checks of the day. */
const dayAdmitted = (day: Day) => sql<number>`coalesce(
  (select n.admitted from spot_admission_count n where n.sku_id = s.id and n.check_date = ${day.date}::date and n.slot_minute = -1),
  (select sum(k.consume_num) from card_check k
    where k.sku_id = s.id and k.check_time >= ${day.start} and k.check_time < ${day.end} and not k.is_deleted),
  0)`;

/**
 * The spots in `scope` (only `ids` when given) that have a capacity or admitted someone on `day`, with
 * the day's entries, in id order. A probe of the (sku_id, check_time) index per spot in scope.
 */
export async function spotsOfDay(db: Executor, scope: Scope, ids: number[] | null, day: Day): Promise<SpotRow[]> {
  const r = await sql<{
    sku_id: number | string;
    sku_name: string;
    merchant_id: number | string;
    shop_id: number | string | null;
    has_capacity: boolean;
    daily_capacity: number | null;
    admitted: number | string;
  }>`
    select * from (
      select s.id as sku_id, s.sku_name, s.merchant_id, s.shop_id, c.sku_id is not null as has_capacity,
        c.daily_capacity, ${dayAdmitted(day)} as admitted
      from sku s
      left join spot_capacity c on c.sku_id = s.id
      where ${scopeCondition(scope, 's.merchant_id', 's.shop_id')} and ${idsCondition('s.id', ids)}
    ) x
    where has_capacity or admitted > 0
    order by sku_id`.execute(db);
  return r.rows.map((row) => ({
    skuId: Number(row.sku_id),
    skuName: row.sku_name,
    merchantId: Number(row.merchant_id),
    shopId: row.shop_id === null ? null : Number(row.shop_id),
    hasCapacity: Boolean(row.has_capacity),
    dailyCapacity: row.daily_capacity === null ? null : Number(row.daily_capacity),
    admitted: Number(row.admitted),
  }));
}

/** The time slots of these spots with the day's entries in each (its counter row, else its checks). */
export async function slotsOfDay(db: Executor, ids: number[], day: Day): Promise<SlotRow[]> {
  if (ids.length === 0) return [];
  const r = await sql<{
    sku_id: number | string;
    start_minute: number;
    end_minute: number;
    capacity: number;
    admitted: number | string;
  }>`
    select sl.sku_id, sl.start_minute, sl.end_minute, sl.capacity, coalesce(
      (select n.admitted from spot_admission_count n
        where n.sku_id = sl.sku_id and n.check_date = ${day.date}::date and n.slot_minute = sl.start_minute),
      (select sum(k.consume_num) from card_check k
        where k.sku_id = sl.sku_id and not k.is_deleted
          and k.check_time >= ${day.start}::timestamptz + make_interval(mins => sl.start_minute)
          and k.check_time < ${day.start}::timestamptz + make_interval(mins => sl.end_minute)
          and k.check_time >= ${day.start} and k.check_time < ${day.end}),
      0) as admitted
    from spot_capacity_slot sl
    where sl.sku_id = any(${ids}::bigint[])
    order by sl.sku_id, sl.start_minute`.execute(db);
  return r.rows.map((row) => ({
    skuId: Number(row.sku_id),
    startMinute: Number(row.start_minute),
    endMinute: Number(row.end_minute),
    capacity: Number(row.capacity),
    admitted: Number(row.admitted),
  }));
}

/** Entries per spot and minute since `from`, for these spots; minutes without any are left out. */
export async function minutesSince(db: Executor, ids: number[], from: Date): Promise<MinuteRow[]> {
  if (ids.length === 0) return [];
  const r = await sql<{ sku_id: number | string; minute: Date; admitted: number | string }>`
    select sku_id, date_trunc('minute', check_time) as minute, sum(consume_num) as admitted
    from card_check
    where sku_id = any(${ids}::bigint[]) and check_time >= ${from} and not is_deleted
    group by 1, 2
    order by 1, 2`.execute(db);
  return r.rows.map((row) => ({ skuId: Number(row.sku_id), minute: row.minute, admitted: Number(row.admitted) }));
}

export interface PollRow {
  skuId: number;
  /** null: the row is the spot's day total (with the spot's name, owners and capacity) */
  minute: Date | null;
  admitted: number;
  skuName: string | null;
  merchantId: number | null;
  shopId: number | null;
  dailyCapacity: number | null;
}

/**
 * The poller's one statement (admission-stream.ts): entries per spot and minute since `from` for every
 * spot (card_check_stat_time_idx, a range of the last minutes), and the day's total of each spot
 * that has such a minute or whose day counter changed since `since` (an offline upload, a
 * revocation), with its name, owners and capacity.
 */
export async function pollAdmissions(db: Executor, p: { from: Date; since: Date; day: Day }): Promise<PollRow[]> {
  const r = await sql<{
    sku_id: number | string;
    minute: Date | null;
    admitted: number | string;
    sku_name: string | null;
    merchant_id: number | string | null;
    shop_id: number | string | null;
    daily_capacity: number | null;
  }>`
    with recent as (
      select sku_id, date_trunc('minute', check_time) as minute, sum(consume_num) as admitted
      from card_check
      where check_time >= ${p.from} and not is_deleted
      group by 1, 2
    ),
    touched as (
      select sku_id from recent
      union
      select sku_id from spot_admission_count
      where check_date = ${p.day.date}::date and slot_minute = -1 and updated_at >= ${p.since}
    )
    select s.id as sku_id, null::timestamptz as minute, ${dayAdmitted(p.day)} as admitted,
      s.sku_name, s.merchant_id, s.shop_id, c.daily_capacity
    from touched t
    join sku s on s.id = t.sku_id
    left join spot_capacity c on c.sku_id = s.id
    union all
    select sku_id, minute, admitted, null, null, null, null from recent`.execute(db);
  return r.rows.map((row) => ({
    skuId: Number(row.sku_id),
    minute: row.minute,
    admitted: Number(row.admitted),
    skuName: row.sku_name,
    merchantId: row.merchant_id === null ? null : Number(row.merchant_id),
    shopId: row.shop_id === null ? null : Number(row.shop_id),
    dailyCapacity: row.daily_capacity === null ? null : Number(row.daily_capacity),
  }));
}
