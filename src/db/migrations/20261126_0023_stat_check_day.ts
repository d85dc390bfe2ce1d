import type { Kysely } from 'kysely';
import { runDdl } from './ddl.js';

/**
 * statHomeCardCheckNum without a scan of the range's checks (docs/decisions.md, Statistics: check
 * days). stat_check_day holds the entries of the folded living checks per UTC day of their check
 * time × card model × SKU: a check's own attributes, none of which a later write changes, so only the
 * fold adds to it and only a revocation takes out of it (check-rollup.repository.ts). A range reads
 * its whole UTC days here and the rest (the partial days at its ends, the checks beyond the mark)
 * from card_check. Invariant: stat_check_day = the living checks at or below the mark grouped by that key.
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
    `insert into stat_check_day (check_day, card_model_id, sku_id, entries)
      select (check_time at time zone 'UTC')::date, card_model_id, sku_id, sum(consume_num)
      from card_check
      where not is_deleted and id <= (select folded_to from stat_check_fold where id = 1)
      group by 1, 2, 3`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, ['drop table stat_check_day']);
}
