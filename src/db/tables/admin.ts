import type { ColumnType, Generated } from 'kysely';
import type { Audit, NullableTimestamp } from './common.js';

/** Every price and validity a card model has had; the current one has `valid_to` null. */
export interface CardModelPriceHistoryTable {
  id: Generated<number>;
  card_model_id: number;
  price: number;
  validity_months: number;
  valid_from: ColumnType<Date, Date | string, Date | string>;
  valid_to: NullableTimestamp;
  created_by: number | null;
  created_at: Generated<Date>;
}

/** A batch of card numbers generated in one call. */
export interface CardBatchTable extends Audit {
  id: Generated<number>;
  batch_no: string;
  card_model_id: number;
  medium: number;
  card_count: number;
  prefix: string;
  merchant_id: number | null;
  shop_id: number | null;
  remark: string | null;
}
