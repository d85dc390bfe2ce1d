import type { Kysely } from 'kysely';
import { runDdl } from './ddl.js';

/**
 * The statistics' tables kept per UTC day (stat_resource_day by activation, stat_check_day by check
 * time) key their rows by one expression, which the fold, the revocation and the triggers of
 * migrations 0022 and 0023 each wrote out; a second spelling that differed (another zone, a cast of
 * the local time) would file entries under days the reads never look at. It is now one function, and
 * the functions of those migrations that are still called are replaced to use it. An immutable SQL
 * function of one expression is inlined by the planner, so the statements run as before.
 */
const UTC_DAY = `create function stat_utc_day(t timestamptz) returns date language sql immutable parallel safe as $$
  select (t at time zone 'UTC')::date
$$`;

const resourceDayAdd = (
  day: (column: string) => string,
) => `create or replace function stat_resource_day_add(card bigint, sign integer) returns void language sql as $$
  insert into stat_resource_day as d (card_model_id, resource_id, merchant_id, shop_id, active_day, entries)
  select card_model_id, resource_id, coalesce(merchant_id, 0), coalesce(shop_id, 0), ${day('active_time')}, sign * sum(entries)
  from stat_check_rollup where card_id = card and counted and active_time is not null
  group by 1, 2, 3, 4, 5
  on conflict (active_day, card_model_id, resource_id, merchant_id, shop_id) do update set entries = d.entries + excluded.entries;
$$`;

const checkDayAdd = (
  day: (column: string) => string,
) => `create or replace function stat_check_day_add(after bigint, upto bigint) returns void language sql as $$
  insert into stat_check_day as d (check_day, card_model_id, sku_id, entries)
  select ${day('k.check_time')}, k.card_model_id, k.sku_id, sum(k.consume_num)
  from card_check k
  where k.id > after and k.id <= upto and not k.is_deleted
  group by 1, 2, 3
  on conflict (check_day, card_model_id, sku_id) do update set entries = d.entries + excluded.entries;
$$`;

const checkDayRevoke = (
  day: (column: string) => string,
) => `create or replace function stat_check_day_revoke() returns trigger language plpgsql as $$
begin
  perform 1 from stat_check_fold where id = 1 for share;
  if new.id <= (select folded_to from stat_check_fold where id = 1) then
    update stat_check_day set entries = entries - new.consume_num
    where check_day = ${day('new.check_time')} and card_model_id = new.card_model_id and sku_id = new.sku_id;
  end if;
  return null;
end $$`;

const byFunction = (column: string) => `stat_utc_day(${column})`;
const writtenOut = (column: string) => `(${column} at time zone 'UTC')::date`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [UTC_DAY, resourceDayAdd(byFunction), checkDayAdd(byFunction), checkDayRevoke(byFunction)]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    resourceDayAdd(writtenOut),
    checkDayAdd(writtenOut),
    checkDayRevoke(writtenOut),
    'drop function stat_utc_day(timestamptz)',
  ]);
}
