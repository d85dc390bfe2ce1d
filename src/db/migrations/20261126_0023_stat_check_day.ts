import type { Kysely } from 'kysely';
import { runDdl } from './ddl.js';

/**
 * statHomeCardCheckNum without a scan of the range's checks (docs/adr/0071-check-days-for-the-home-figure.md).
 * stat_check_day holds the entries of the folded living checks per UTC day of their check
 * time × card model × SKU: a check's own attributes, which no later write changes. So it moves only
 * when the fold's mark moves and when a folded check is revoked, and two triggers keep it there, in
 * the transaction that moves the mark or revokes: whichever version of the service folds or revokes
 * (an instance of the previous release during a rolling upgrade knows nothing of this table) it stays
 * exact. The revocation trigger takes the mark's row FOR SHARE as the roll-up's revocation does, so a
 * fold in progress is waited for and its new mark is the one compared.
 * A range reads its whole UTC days here and the rest (the partial days at its ends, the checks beyond
 * the mark) from card_check. Invariant: stat_check_day = the living checks at or below the mark
 * grouped by that key.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    // No fold or revocation runs meanwhile (both take the mark's row first).
    `select folded_to from stat_check_fold where id = 1 for update`,
    `create table stat_check_day (
      check_day date not null,
      card_model_id bigint not null,
      sku_id bigint not null,
      entries bigint not null check (entries >= 0),
      primary key (check_day, card_model_id, sku_id) include (entries)
    )`,
    // Adds the living checks with ids in (after, upto] to their days: the backfill and each fold.
    `create function stat_check_day_add(after bigint, upto bigint) returns void language sql as $$
      insert into stat_check_day as d (check_day, card_model_id, sku_id, entries)
      select (k.check_time at time zone 'UTC')::date, k.card_model_id, k.sku_id, sum(k.consume_num)
      from card_check k
      where k.id > after and k.id <= upto and not k.is_deleted
      group by 1, 2, 3
      on conflict (check_day, card_model_id, sku_id) do update set entries = d.entries + excluded.entries;
    $$`,
    `select stat_check_day_add(0, folded_to) from stat_check_fold where id = 1`,
    `create function stat_check_day_fold() returns trigger language plpgsql as $$
    begin
      perform stat_check_day_add(old.folded_to, new.folded_to);
      return null;
    end $$`,
    `create trigger stat_check_day_fold_trg after update of folded_to on stat_check_fold
      for each row when (new.folded_to > old.folded_to) execute function stat_check_day_fold()`,
    `create function stat_check_day_revoke() returns trigger language plpgsql as $$
    begin
      perform 1 from stat_check_fold where id = 1 for share;
      if new.id <= (select folded_to from stat_check_fold where id = 1) then
        update stat_check_day set entries = entries - new.consume_num
        where check_day = (new.check_time at time zone 'UTC')::date and card_model_id = new.card_model_id and sku_id = new.sku_id;
      end if;
      return null;
    end $$`,
    `create trigger stat_check_day_revoke_trg after update of is_deleted on card_check
      for each row when (new.is_deleted and not old.is_deleted) execute function stat_check_day_revoke()`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    'drop trigger stat_check_day_revoke_trg on card_check',
    'drop trigger stat_check_day_fold_trg on stat_check_fold',
    'drop function stat_check_day_revoke()',
    'drop function stat_check_day_fold()',
    'drop function stat_check_day_add(bigint, bigint)',
    'drop table stat_check_day',
  ]);
}
