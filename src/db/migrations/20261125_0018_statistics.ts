import type { Kysely } from 'kysely';
import { runDdl } from './ddl.js';

/**
 * Indexes of the statistics (spec B 4.1, docs/domain.md §6), measured with EXPLAIN on the demo data set
 * (docs/adr/0068-statistics-are-sql-aggregation-in-the-card-scope.md). Both are partial (living checks only) and covering, so the
 * aggregates read the index alone (index-only scans once autovacuum has set the visibility map).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    // statHomeCardCheckNum: a date range's entries per card model, scoped through the SKU.
    `create index card_check_stat_time_idx on card_check (check_time) include (card_model_id, sku_id, consume_num) where not is_deleted`,
    // profitAccounting: one card model's checks in card order (merge-joined with its cohort of cards),
    // per resource, to bucket cards by their number of uses and to sum entries per resource.
    `create index card_check_stat_card_idx on card_check (card_model_id, card_id, resource_id) include (consume_num) where not is_deleted`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, ['drop index card_check_stat_card_idx', 'drop index card_check_stat_time_idx']);
}
