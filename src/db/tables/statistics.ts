import type { ColumnType, Generated } from 'kysely';

/** Entries and checks of the living checks at or below stat_check_fold.folded_to, per card model × card × resource. */
export interface StatCheckRollupTable {
  card_model_id: number;
  card_id: number;
  resource_id: number;
  entries: ColumnType<number, number, number>;
  checks: number;
  /** the card's, kept by the fold and a trigger on card (migration 0022) */
  active_time: Date | null;
  merchant_id: number | null;
  shop_id: number | null;
  /** the card lives and is still of this row's model */
  counted: Generated<boolean>;
}

/** stat_check_rollup summed over resources: one row per card and model (migration 0022). */
export interface StatCardUseTable {
  card_id: number;
  card_model_id: number;
  entries: ColumnType<number, number, number>;
  active_time: Date | null;
  merchant_id: number | null;
  shop_id: number | null;
  counted: Generated<boolean>;
}

/** The one row (id 1) saying how far card_check has been folded into stat_check_rollup (by check id). */
export interface StatCheckFoldTable {
  id: number;
  folded_to: number;
  folded_at: Generated<Date>;
}

/** One row per living binding of a living card, kept by triggers (migration 0021): the portrait's holders. */
export interface StatHolderTable {
  binding_id: number;
  card_model_id: number;
  merchant_id: number | null;
  shop_id: number | null;
  active_time: Date | null;
  /** md5 of the ID type and upper-cased number, as a uuid: equal for one document */
  document: string;
  /** 1 man, 2 woman, 0 unknown */
  sex: number;
  /** YYYYMMDD */
  birth: number | null;
  /** region id of the district (or of a coarser region a member named) */
  district: number | null;
}

/** The counted roll-up entries per model × resource × seller (0 for none) × UTC activation day (migration 0022). */
export interface StatResourceDayTable {
  card_model_id: number;
  resource_id: number;
  merchant_id: number;
  shop_id: number;
  active_day: string;
  entries: ColumnType<number, number, number>;
}

/** The folded living checks' entries per UTC day of check time × card model × SKU (migration 0023). */
export interface StatCheckDayTable {
  check_day: string;
  card_model_id: number;
  sku_id: number;
  entries: ColumnType<number, number, number>;
}
