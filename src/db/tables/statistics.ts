import type { ColumnType, Generated } from 'kysely';

/** Entries and checks of the living checks at or below stat_check_fold.folded_to, per card model × card × resource. */
export interface StatCheckRollupTable {
  card_model_id: number;
  card_id: number;
  resource_id: number;
  entries: ColumnType<number, number, number>;
  checks: number;
}

/** The one row (id 1) saying how far card_check has been folded into stat_check_rollup (by check id). */
export interface StatCheckFoldTable {
  id: number;
  folded_to: number;
  folded_at: Generated<Date>;
}
