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
 *   channel and scoped by the spot's merchant and shop.
 */
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
      created_at timestamptz not null default now(),
      foreign key (check_id, check_time) references card_check (id, check_time)
    )`,
    `create index card_check_conflict_merchant_idx on card_check_conflict (merchant_id, shop_id, id)`,
    `create index card_check_conflict_check_idx on card_check_conflict (check_id)`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    'drop table card_check_conflict',
    'drop table spot_admission_count',
    'drop table spot_capacity_slot',
    'drop table spot_capacity',
  ]);
}
