import type { Kysely } from 'kysely';
import { AUDIT, runDdl } from './ddl.js';

/**
 * Scenic-spot capacity and offline-scan conflicts (docs/domain.md §4, issue 39).
 *
 * - spot_capacity: a scenic spot's (SKU's) daily capacity, set on the manage channel; null: no daily
 *   bound (its time slots may still have one). Owned by the checker module.
 * - spot_capacity_slot: optional time slots of a spot's day, each with its own capacity, as minutes of
 *   the day in the service time zone [start_minute, end_minute).
 * - spot_admission_count: entries admitted per spot, day and slot (slot_minute -1: the whole day),
 *   kept by the check-in statement for spots with a capacity, as card_check_day_count keeps a card's
 *   day: a conditional upsert, so a capacity is exact on any number of instances.
 * - card_check_conflict: a check recorded from an offline gate although it broke a bound (the card's
 *   daily limit, the spot's day or slot capacity), because the visit had happened; paged on the manage
 *   channel and scoped by the spot's merchant and shop. It points at its check by id and partition
 *   column without a foreign key, as card_check_nonce does: a key on the partitioned card_check would
 *   stop its partitions from being dropped or detached (docs/adr/0100-history-tables-partitioned-by-month.md).
 * - checkin_take_entries(): the counters a scan at a spot with a capacity raises, all or none
 *   (docs/adr/0105-exact-spot-capacity.md).
 */
/** The living entries of a day's checks (check times of the day ± a day: one month's partition is read). */
const DAY_ENTRIES = `coalesce(sum(k.consume_num), 0)::integer as n from card_check k
      where k.check_date = p_day and not k.is_deleted
        and k.check_time >= (p_day - 1)::timestamptz and k.check_time < (p_day + 2)::timestamptz`;

/**
 * The PL/pgSQL that takes a scan's entries from one of the spot's counters (`slot`: -1 the day, else
 * the slot's start minute) within `bound`, into `into` (null: refused). The counter's row first: the
 * day's records (those of `records` at the spot) are summed only to start a missing row, not on every
 * scan (a spot admits thousands a day; an upsert computes its seed before it meets the conflict).
 * Waiting on a concurrent scan's lock, the update judges its condition again on the row that scan
 * committed, so the bound stays exact; a row seen full is a refusal, a row made or given back since
 * the update's snapshot is tried again, and the third try goes the upsert's way.
 */
function takeSpotCounter(o: { slot: string; bound: string; into: string; records?: string }): string {
  const within = (count: string) => `(p_record or ${o.bound} is null or ${count} + p_n <= ${o.bound})`;
  const key = `a.sku_id = p_sku and a.check_date = p_day and a.slot_minute = ${o.slot}`;
  return `for v_try in 1..3 loop
      update spot_admission_count as a set admitted = a.admitted + p_n, updated_at = now()
      where ${key} and ${within('a.admitted')}
      returning a.admitted into ${o.into};
      exit when found;
      select a.admitted into v_seen from spot_admission_count a where ${key};
      exit when found and not ${within('v_seen')};
      continue when found and v_try < 3;
      insert into spot_admission_count as a (sku_id, check_date, slot_minute, admitted)
      select p_sku, p_day, ${o.slot}, s.n + p_n
      from (select ${DAY_ENTRIES} and k.sku_id = p_sku ${o.records ?? ''}) s
      where ${within('s.n')}
      on conflict (sku_id, check_date, slot_minute)
        do update set admitted = a.admitted + p_n, updated_at = now()
        where ${within('a.admitted')}
      returning a.admitted into ${o.into};
      exit;
    end loop;`;
}

/**
 * Takes a scan's entries from the card's day counter, then from the spot's day counter, then from
 * its slot's, each a conditional upsert as the check-in statement does for the card alone
 * (docs/adr/0105-exact-spot-capacity.md): a new row starts from the day's living checks, an existing
 * one is raised only within its bound, and the row stays locked until the scan's transaction ends.
 * When a spot bound refuses, the entries already taken are given back to the rows this call locked,
 * so the counters are raised all or none. p_record: an offline gate already admitted the visitor;
 * nothing refuses, every counter is raised. Answers which bound refused (0 none, else ConflictKind)
 * and the counts after the scan. Each statement here sees what committed before it ran (the
 * function is volatile), and the minutes of a check are read in the session's zone, the service's.
 */
const TAKE_ENTRIES = `create function checkin_take_entries(
    p_card bigint, p_resource bigint, p_card_limit integer, p_sku bigint, p_day date, p_n integer,
    p_record boolean, p_daily integer, p_slot_start integer, p_slot_end integer, p_slot_capacity integer)
  returns table (refused integer, card_used integer, day_admitted integer, slot_admitted integer)
  language plpgsql volatile as $$
  declare
    v_used integer;
    v_day integer;
    v_slot integer;
    v_seen integer;
    v_try integer;
  begin
    insert into card_check_day_count as d (card_id, resource_id, check_date, used)
    select p_card, p_resource, p_day, s.n + p_n
    from (select ${DAY_ENTRIES} and k.card_id = p_card and k.resource_id = p_resource) s
    where p_record or s.n + p_n <= p_card_limit
    on conflict (card_id, resource_id, check_date)
      do update set used = d.used + p_n, updated_at = now()
      where p_record or d.used + p_n <= p_card_limit
    returning d.used into v_used;
    if v_used is null then
      return query select 1, null::integer, null::integer, null::integer;
      return;
    end if;

${takeSpotCounter({ slot: '-1', bound: 'p_daily', into: 'v_day' })}
    if v_day is null then
      update card_check_day_count set used = used - p_n, updated_at = now()
      where card_id = p_card and resource_id = p_resource and check_date = p_day;
      return query select 2, v_used, null::integer, null::integer;
      return;
    end if;

    if p_slot_start is not null then
${takeSpotCounter({
  slot: 'p_slot_start',
  bound: 'p_slot_capacity',
  into: 'v_slot',
  records: `and extract(hour from k.check_time) * 60 + extract(minute from k.check_time) >= p_slot_start
          and extract(hour from k.check_time) * 60 + extract(minute from k.check_time) < p_slot_end`,
})}
      if v_slot is null then
        update card_check_day_count set used = used - p_n, updated_at = now()
        where card_id = p_card and resource_id = p_resource and check_date = p_day;
        update spot_admission_count set admitted = admitted - p_n, updated_at = now()
        where sku_id = p_sku and check_date = p_day and slot_minute = -1;
        return query select 3, v_used, v_day, null::integer;
        return;
      end if;
    end if;
    return query select 0, v_used, v_day, v_slot;
  end
  $$`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    `create table spot_capacity (
      sku_id bigint primary key references sku (id),
      merchant_id bigint not null,
      shop_id bigint,
      daily_capacity integer check (daily_capacity > 0),
      ${AUDIT}
    )`,
    `create index spot_capacity_merchant_idx on spot_capacity (merchant_id, shop_id)`,
    `create table spot_capacity_slot (
      sku_id bigint not null references spot_capacity (sku_id) on delete cascade,
      start_minute integer not null check (start_minute >= 0 and start_minute < 1440),
      end_minute integer not null check (end_minute > start_minute and end_minute <= 1440),
      capacity integer not null check (capacity > 0),
      primary key (sku_id, start_minute)
    )`,
    `create table spot_admission_count (
      sku_id bigint not null,
      check_date date not null,
      slot_minute integer not null,
      admitted integer not null,
      updated_at timestamptz not null default now(),
      primary key (sku_id, check_date, slot_minute)
    )`,
    `create table card_check_conflict (
      id bigserial primary key,
      check_id bigint not null,
      check_time timestamptz not null,
      card_id bigint not null,
      sku_id bigint not null,
      resource_id bigint not null,
      merchant_id bigint not null,
      shop_id bigint,
      checker_id bigint,
      kind smallint not null,
      limit_value integer not null,
      count_value integer not null,
      created_at timestamptz not null default now()
    )`,
    `create index card_check_conflict_merchant_idx on card_check_conflict (merchant_id, shop_id, id)`,
    `create index card_check_conflict_check_idx on card_check_conflict (check_id)`,
    TAKE_ENTRIES,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    'drop function checkin_take_entries',
    'drop table card_check_conflict',
    'drop table spot_admission_count',
    'drop table spot_capacity_slot',
    'drop table spot_capacity',
  ]);
}
