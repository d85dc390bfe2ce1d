import type { Kysely } from 'kysely';
import { runDdl } from './ddl.js';

/**
 * card_check_stat_card_idx (migration 0018) served profitAccounting's per-card sums over a model's
 * checks; since migrations 0020 and 0022 those come from the roll-up and stat_card_use, and no query
 * reads it (EXPLAIN of every card_check query on the 10M set; pg_stat_user_indexes showed no scan after
 * the statistics, check-in and allocation benches). Every check-in still paid for it: one of the eleven
 * index entries its statement writes, and 474 MB at 10M checks.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, ['drop index if exists card_check_stat_card_idx']);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    `create index card_check_stat_card_idx on card_check (card_model_id, card_id, resource_id) include (consume_num) where not is_deleted`,
  ]);
}
