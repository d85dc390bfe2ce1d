import type { Kysely } from 'kysely';
import { runDdl } from './ddl.js';

/**
 * The check roll-up of the statistics (docs/adr/0069-check-roll-up-exact-behind-a-fold-mark.md). stat_check_rollup
 * holds, per card, card model and resource, the entries (Σ consume_num) and the number of the living
 * checks whose id is at or below stat_check_fold.folded_to; the statistics add the live checks beyond
 * it, so every answer is exact. The statistics module's job folds new checks; a revoked check at or
 * below the mark is taken out of it in the revoking transaction.
 *
 * The member portrait (statCardArea) reads a holder's gender, birth date and district from the
 * binding's resident ID number when the member record does not say them: three stored generated
 * columns of card_binding hold them, computed once when the binding is written (the table is
 * rewritten once here). An ID number of type 1 whose first 17 characters are digits gives them; any
 * other document none. The expressions are those the portrait used per row (docs/adr/0070-holder-attributes-computed-when-a-binding-is-written.md).
 *
 * The backfill holds card_check in SHARE mode (check-ins wait until the migration commits), so no
 * check whose transaction is still open can hold an id below the mark.
 */
/** A resident ID number (type 1) whose first 17 characters are digits (the check character is not read). */
const ID_OK = `case when id_type = 1 and length(id_no) = 18 and left(id_no, 17) !~ '[^0-9]'`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    // Keyed model first: profitAccounting reads one model's cards within its cohort's card id span.
    `create table stat_check_rollup (
      card_model_id bigint not null,
      card_id bigint not null,
      resource_id bigint not null,
      entries bigint not null check (entries >= 0),
      checks integer not null check (checks >= 0),
      primary key (card_model_id, card_id, resource_id) include (entries)
    )`,
    `create table stat_check_fold (
      id smallint primary key check (id = 1),
      folded_to bigint not null,
      folded_at timestamptz not null default now()
    )`,
    `alter table card_binding
      add column id_sex smallint generated always as (${ID_OK} then 2 - substr(id_no, 17, 1)::int % 2 end) stored,
      add column id_birth integer generated always as (${ID_OK} then substr(id_no, 7, 8)::int end) stored,
      add column id_district integer generated always as (${ID_OK} then substr(id_no, 1, 6)::int end) stored`,
    `lock table card_check in share mode`,
    `insert into stat_check_fold (id, folded_to) select 1, coalesce(max(id), 0) from card_check`,
    `insert into stat_check_rollup (card_model_id, card_id, resource_id, entries, checks)
      select card_model_id, card_id, resource_id, sum(consume_num), count(*)
      from card_check
      where not is_deleted
      group by card_model_id, card_id, resource_id`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    'drop table stat_check_fold',
    'drop table stat_check_rollup',
    'alter table card_binding drop column id_sex, drop column id_birth, drop column id_district',
  ]);
}
