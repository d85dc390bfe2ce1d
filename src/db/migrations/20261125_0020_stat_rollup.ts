import type { Kysely } from 'kysely';
import { runDdl } from './ddl.js';

/**
 * The check roll-up of the statistics (docs/decisions.md, Statistics: roll-up). stat_check_rollup
 * holds, per card, card model and resource, the entries (Σ consume_num) and the number of the living
 * checks whose id is at or below stat_check_fold.folded_to; the statistics add the live checks beyond
 * it, so every answer is exact. The statistics module's job folds new checks; a revoked check at or
 * below the mark is taken out of it in the revoking transaction.
 *
 * The backfill holds card_check in SHARE mode (check-ins wait until the migration commits), so no
 * check whose transaction is still open can hold an id below the mark.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    `create table stat_check_rollup (
      card_id bigint not null,
      card_model_id bigint not null,
      resource_id bigint not null,
      entries bigint not null check (entries >= 0),
      checks integer not null check (checks >= 0),
      primary key (card_id, card_model_id, resource_id) include (entries)
    )`,
    `create table stat_check_fold (
      id smallint primary key check (id = 1),
      folded_to bigint not null,
      folded_at timestamptz not null default now()
    )`,
    `lock table card_check in share mode`,
    `insert into stat_check_fold (id, folded_to) select 1, coalesce(max(id), 0) from card_check`,
    `insert into stat_check_rollup (card_id, card_model_id, resource_id, entries, checks)
      select card_id, card_model_id, resource_id, sum(consume_num), count(*)
      from card_check
      where not is_deleted
      group by card_id, card_model_id, resource_id`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, ['drop table stat_check_fold', 'drop table stat_check_rollup']);
}
