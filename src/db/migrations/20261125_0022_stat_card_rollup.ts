import type { Kysely } from 'kysely';
import { runDdl } from './ddl.js';

/**
 * profitAccounting without a join to the cards (docs/adr/0069-check-roll-up-exact-behind-a-fold-mark.md).
 * The check roll-up's rows carry their card's activation, seller and whether they count
 * (the card lives and is still of the row's model: what the cohort's join required), so the entries
 * per resource of a cohort are one filtered scan; stat_card_use holds the same per card (the sum over
 * its resources), so the cohort's cards are bucketed by their uses without grouping them first; and
 * stat_resource_day holds the counted entries per model × resource × seller × UTC day of activation,
 * so a cohort's entries per resource are its whole days from there and its partial days (at most two)
 * from the roll-up's rows. Invariant: stat_resource_day = the counted roll-up rows grouped by that key.
 *
 * The fold writes the three tables from card_check joined with card; a revocation takes a folded check
 * out of them; a card whose model, seller, activation or deletion changes has its rows updated (and
 * its day entries moved) by a trigger, which first meets the fold's lock on the mark row (FOR SHARE), so a fold reading the card
 * before the change cannot commit rows with the old attributes after the trigger has passed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    // No fold runs meanwhile (another instance's job waits for the mark).
    `select folded_to from stat_check_fold where id = 1 for update`,
    `alter table stat_check_rollup add column active_time timestamptz, add column merchant_id bigint, add column shop_id bigint,
      add column counted boolean not null default false`,
    `update stat_check_rollup u
      set active_time = c.active_time, merchant_id = c.merchant_id, shop_id = c.shop_id,
        counted = (not c.is_deleted and c.card_model_id = u.card_model_id)
      from card c where c.id = u.card_id`,
    `create index stat_check_rollup_card_idx on stat_check_rollup (card_id)`,
    // A cohort is a span of activation times (of one model or all): read from the index alone.
    `create index stat_check_rollup_cohort_idx on stat_check_rollup (active_time, card_model_id)
      include (resource_id, entries, merchant_id, shop_id) where counted and entries > 0`,
    `create table stat_card_use (
      card_id bigint not null,
      card_model_id bigint not null,
      entries bigint not null check (entries >= 0),
      active_time timestamptz,
      merchant_id bigint,
      shop_id bigint,
      counted boolean not null default false,
      primary key (card_id, card_model_id)
    )`,
    `insert into stat_card_use (card_id, card_model_id, entries, active_time, merchant_id, shop_id, counted)
      select card_id, card_model_id, sum(entries), min(active_time), min(merchant_id), min(shop_id), bool_and(counted)
      from stat_check_rollup group by card_id, card_model_id`,
    `create index stat_card_use_cohort_idx on stat_card_use (active_time, card_model_id)
      include (entries, merchant_id, shop_id) where counted and entries > 0`,
    // Sellers are 0 for none, so the key has no nulls.
    `create table stat_resource_day (
      card_model_id bigint not null,
      resource_id bigint not null,
      merchant_id bigint not null,
      shop_id bigint not null,
      active_day date not null,
      entries bigint not null,
      primary key (active_day, card_model_id, resource_id, merchant_id, shop_id)
    )`,
    `insert into stat_resource_day (card_model_id, resource_id, merchant_id, shop_id, active_day, entries)
      select card_model_id, resource_id, coalesce(merchant_id, 0), coalesce(shop_id, 0), (active_time at time zone 'UTC')::date, sum(entries)
      from stat_check_rollup where counted and active_time is not null
      group by 1, 2, 3, 4, 5`,
    // Adds (sign 1) or takes out (-1) a card's counted roll-up rows to or from its day entries.
    `create function stat_resource_day_add(card bigint, sign integer) returns void language sql as $$
      insert into stat_resource_day as d (card_model_id, resource_id, merchant_id, shop_id, active_day, entries)
      select card_model_id, resource_id, coalesce(merchant_id, 0), coalesce(shop_id, 0), (active_time at time zone 'UTC')::date, sign * sum(entries)
      from stat_check_rollup where card_id = card and counted and active_time is not null
      group by 1, 2, 3, 4, 5
      on conflict (active_day, card_model_id, resource_id, merchant_id, shop_id) do update set entries = d.entries + excluded.entries;
    $$`,
    // The statistics' one trigger on card: the card's holder rows (migration 0021) and its roll-up rows.
    `create function stat_card_changed() returns trigger language plpgsql as $$
    begin
      perform stat_holder_refresh(array(select id from card_binding where card_id = new.id and not is_deleted));
      perform 1 from stat_check_fold where id = 1 for share;
      perform stat_resource_day_add(new.id, -1);
      update stat_check_rollup
        set active_time = new.active_time, merchant_id = new.merchant_id, shop_id = new.shop_id,
          counted = (not new.is_deleted and card_model_id = new.card_model_id)
        where card_id = new.id;
      update stat_card_use
        set active_time = new.active_time, merchant_id = new.merchant_id, shop_id = new.shop_id,
          counted = (not new.is_deleted and card_model_id = new.card_model_id)
        where card_id = new.id;
      perform stat_resource_day_add(new.id, 1);
      return null;
    end $$`,
    `create trigger stat_card_trg after update of is_deleted, card_model_id, merchant_id, shop_id, active_time on card for each row
      when (old.is_deleted is distinct from new.is_deleted or old.card_model_id is distinct from new.card_model_id
        or old.merchant_id is distinct from new.merchant_id or old.shop_id is distinct from new.shop_id
        or old.active_time is distinct from new.active_time)
      execute function stat_card_changed()`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    'drop trigger stat_card_trg on card',
    'drop function stat_card_changed()',
    'drop function stat_resource_day_add(bigint, integer)',
    'drop table stat_resource_day',
    'drop table stat_card_use',
    'drop index stat_check_rollup_cohort_idx',
    'drop index stat_check_rollup_card_idx',
    'alter table stat_check_rollup drop column active_time, drop column merchant_id, drop column shop_id, drop column counted',
  ]);
}
