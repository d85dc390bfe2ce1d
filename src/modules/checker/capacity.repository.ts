import { sql } from 'kysely';
import type { Executor } from '../../platform/db/executor.js';

/**
 * spot_capacity, spot_capacity_slot and spot_admission_count outside the scan statement: the manage
 * channel's capacity, the give-back of a revoked check and the pruning of old counters
 * (docs/adr/0105-exact-spot-capacity.md).
 */

export interface SpotOwner {
  skuId: number;
  skuName: string;
  merchantId: number;
  shopId: number | null;
}

export interface Slot {
  startMinute: number;
  endMinute: number;
  capacity: number;
}

export interface SpotCapacity {
  dailyCapacity: number | null;
  slots: Slot[];
}

/** A living SKU with its owner. */
export async function findSpot(db: Executor, skuId: number): Promise<SpotOwner | null> {
  const r = await db
    .selectFrom('sku')
    .select(['id', 'sku_name', 'merchant_id', 'shop_id'])
    .where('id', '=', skuId)
    .where('is_deleted', '=', false)
    .executeTakeFirst();
  return r ? { skuId: r.id, skuName: r.sku_name, merchantId: r.merchant_id, shopId: r.shop_id } : null;
}

/** The spot's capacity; null when it has none. */
export async function findCapacity(db: Executor, skuId: number): Promise<SpotCapacity | null> {
  const row = await db
    .selectFrom('spot_capacity')
    .select('daily_capacity')
    .where('sku_id', '=', skuId)
    .executeTakeFirst();
  if (!row) return null;
  const slots = await db
    .selectFrom('spot_capacity_slot')
    .select(['start_minute', 'end_minute', 'capacity'])
    .where('sku_id', '=', skuId)
    .orderBy('start_minute')
    .execute();
  return {
    dailyCapacity: row.daily_capacity,
    slots: slots.map((s) => ({ startMinute: s.start_minute, endMinute: s.end_minute, capacity: s.capacity })),
  };
}

/**
 * Waits for every scan statement in flight to end and holds the next ones until the caller's
 * transaction ends: each scan statement reads spot_capacity, taking its lock before its snapshot, so
 * a scan either ended before the change or sees it whole, with the admissions made before it
 * (docs/adr/0105-exact-spot-capacity.md).
 */
export async function lockCapacities(trx: Executor): Promise<boolean> {
  // Scans queue behind a waiting lock request: a setting that cannot have the table at once (a long
  // read holds it) gives up soon rather than hold every gate of the service.
  await sql.raw(`set local lock_timeout = '${CAPACITY_LOCK_TIMEOUT}'`).execute(trx);
  try {
    await sql`lock table spot_capacity in access exclusive mode`.execute(trx);
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === '55P03') return false; // lock_not_available
    throw err;
  }
}

const CAPACITY_LOCK_TIMEOUT = '2s';

/**
 * Replaces the spot's capacity (null: removes it) and drops its admission counters; those of `today`
 * are counted again at once from the day's living checks (the admissions board reads them), those of
 * other days by the next scan of the day. Under lockCapacities, so every check counted is committed.
 */
export async function replaceCapacity(
  trx: Executor,
  spot: SpotOwner,
  capacity: SpotCapacity | null,
  by: number,
  today: string,
): Promise<void> {
  await trx.deleteFrom('spot_admission_count').where('sku_id', '=', spot.skuId).execute();
  await trx.deleteFrom('spot_capacity_slot').where('sku_id', '=', spot.skuId).execute();
  if (!capacity) {
    await trx.deleteFrom('spot_capacity').where('sku_id', '=', spot.skuId).execute();
    return;
  }
  await trx
    .insertInto('spot_capacity')
    .values({
      sku_id: spot.skuId,
      merchant_id: spot.merchantId,
      shop_id: spot.shopId,
      daily_capacity: capacity.dailyCapacity,
      created_by: by,
      updated_by: by,
    })
    .onConflict((oc) =>
      oc.column('sku_id').doUpdateSet({
        merchant_id: spot.merchantId,
        shop_id: spot.shopId,
        daily_capacity: capacity.dailyCapacity,
        updated_by: by,
        updated_at: new Date(),
      }),
    )
    .execute();
  if (capacity.slots.length > 0)
    await trx
      .insertInto('spot_capacity_slot')
      .values(
        capacity.slots.map((s) => ({
          sku_id: spot.skuId,
          start_minute: s.startMinute,
          end_minute: s.endMinute,
          capacity: s.capacity,
        })),
      )
      .execute();
  await sql`
    insert into spot_admission_count (sku_id, check_date, slot_minute, admitted)
    select ${spot.skuId}, ${today}::date, m.slot_minute, s.n
    from (
      select -1 as slot_minute, 0 as from_minute, 1440 as to_minute
      union all
      select start_minute, start_minute, end_minute from spot_capacity_slot where sku_id = ${spot.skuId}
    ) m
    cross join lateral (${admittedBetween(spot.skuId, today)}) s`.execute(trx);
}

/** The entries of a day's living checks at a spot whose minute of the day is in [m.from_minute, m.to_minute). */
const admittedBetween = (skuId: number, day: string) => sql`
      select coalesce(sum(k.consume_num), 0)::integer as n from card_check k
      where k.sku_id = ${skuId} and k.check_date = ${day}::date and not k.is_deleted
        and k.check_time >= (${day}::date - 1)::timestamptz and k.check_time < (${day}::date + 2)::timestamptz
        and extract(hour from k.check_time) * 60 + extract(minute from k.check_time) >= m.from_minute
        and extract(hour from k.check_time) * 60 + extract(minute from k.check_time) < m.to_minute`;

/** A revoked check's admission, as the spot's counters hold it. */
export interface RevokedAdmission {
  skuId: number;
  checkDate: string;
  /** minute of the day of its check time, service time zone */
  minute: number;
  consumeNum: number;
}

/**
 * Gives a revoked check's entries back to its spot's day and slot counters, for a spot with a
 * capacity (nothing else is counted). Run after the check is marked revoked, in its transaction: a
 * missing counter is seeded from the day's living checks (the revoked one no longer among them) and a
 * present one lowered, each row locked as the scans lock it, so the count stays exact whichever
 * commits first.
 */
export async function releaseAdmission(trx: Executor, a: RevokedAdmission): Promise<void> {
  await sql`
    insert into spot_admission_count as a (sku_id, check_date, slot_minute, admitted)
    select sc.sku_id, ${a.checkDate}::date, m.slot_minute, s.n
    from spot_capacity sc
    cross join lateral (
      select -1 as slot_minute, 0 as from_minute, 1440 as to_minute
      union all
      select sl.start_minute, sl.start_minute, sl.end_minute from spot_capacity_slot sl
      where sl.sku_id = sc.sku_id and sl.start_minute <= ${a.minute} and sl.end_minute > ${a.minute}
    ) m
    cross join lateral (${admittedBetween(a.skuId, a.checkDate)}) s
    where sc.sku_id = ${a.skuId}
    on conflict (sku_id, check_date, slot_minute)
      do update set admitted = greatest(a.admitted - ${a.consumeNum}::integer, 0), updated_at = now()`.execute(trx);
}

/** Deletes up to `limit` admission counters of days before `day`; answers how many (see day-count.repository). */
export async function deleteAdmissionCountsBefore(db: Executor, day: string, limit: number): Promise<number> {
  const r = await sql`
    delete from spot_admission_count
    where (sku_id, check_date, slot_minute) in (
      select sku_id, check_date, slot_minute from spot_admission_count
      where check_date < ${day}::date
      limit ${limit}
      for update skip locked
    )`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}
