import type { ColumnType, Generated } from 'kysely';
import type { Audit, NullableTimestamp, Numeric, DateText } from './common.js';
// Tables written only by the card module (docs/architecture.md §4.3).

export interface CardModelTable extends Audit {
  id: Generated<number>;
  name: string;
  price: number;
  validity_months: Generated<number>;
  allocation_enabled: Generated<boolean>;
  status: Generated<number>;
  sku_id: number | null;
  merchant_id: number | null;
  remark: string | null;
  is_deleted: Generated<boolean>;
}

export interface CardModelResourceRuleTable extends Audit {
  id: Generated<number>;
  card_model_id: number;
  resource_id: number;
  settlement_way: number;
  buy_price: number | null;
  settlement_factor: ColumnType<string, string | number | undefined, string | number>;
  buyout_amount: number | null;
  share_percent: Numeric;
  daily_check_limit: Generated<number>;
  is_deleted: Generated<boolean>;
}

export interface CardModelResourcePriceTable extends Audit {
  id: Generated<number>;
  rule_id: number;
  start_date: DateText;
  end_date: DateText;
  price: number;
  settlement_factor: ColumnType<string, string | number | undefined, string | number>;
}

export interface CardTable extends Audit {
  id: Generated<number>;
  card_number: string;
  card_model_id: number;
  status: Generated<number>;
  medium: Generated<number>;
  channel: number | null;
  merchant_id: number | null;
  shop_id: number | null;
  active_by: number | null;
  is_donation: Generated<boolean>;
  active_time: NullableTimestamp;
  expire_time: NullableTimestamp;
  order_no: string | null;
  batch_id: number | null;
  status_reason: string | null;
  is_deleted: Generated<boolean>;
}

export interface CardBindingTable extends Audit {
  id: Generated<number>;
  card_id: number;
  member_id: number | null;
  name: string | null;
  phone: string | null;
  id_type: number | null;
  id_no: string | null;
  face_photo: string | null;
  bound_at: ColumnType<Date, Date | string | undefined, Date | string>;
  is_deleted: Generated<boolean>;
  /** from a resident ID number (type 1, 17 leading digits), stored when written (migration 0020): 1 man, 2 woman */
  id_sex: ColumnType<number | null, never, never>;
  /** the ID number's birth digits as YYYYMMDD, taken as they are */
  id_birth: ColumnType<number | null, never, never>;
  /** the ID number's district code (its first six digits) */
  id_district: ColumnType<number | null, never, never>;
}

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
