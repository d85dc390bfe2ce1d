import type { ColumnType, Generated } from 'kysely';
import type { Audit, NullableTimestamp, Numeric, Timestamp } from './common.js';

/** time columns travel as 'HH:mm:ss' text */
type TimeOfDay = string | null;
/** date columns travel as 'YYYY-MM-DD' text (the database layer keeps them unparsed) */
type DateText = ColumnType<string, string, string>;

export interface SpuTable extends Audit {
  id: Generated<number>;
  name: string;
  shop_id: number;
  merchant_id: number;
  resource_type: number;
  cost_price: number | null;
  stock: number | null;
  status: Generated<number>;
  description: string | null;
  is_deleted: Generated<boolean>;
}

export interface SkuTable extends Audit {
  id: Generated<number>;
  goods_id: number;
  merchant_id: number;
  shop_id: number | null;
  goods_channel_id: number | null;
  sku_name: string;
  show_price: number | null;
  buy_price: number | null;
  cost_price: number | null;
  buy_count: number | null;
  stock: number | null;
  is_logistic: boolean | null;
  carriage_id: number | null;
  mold: number | null;
  is_distributes: boolean | null;
  commission: number | null;
  is_preferential: boolean | null;
  is_use_score: boolean | null;
  is_add_score: boolean | null;
  use_score_rate: Numeric;
  add_score_rate: Numeric;
  card_num: number | null;
  status: Generated<number>;
  is_deleted: Generated<boolean>;
}

export interface SkuEntranceTable extends Audit {
  id: Generated<number>;
  sku_id: number;
  entrance_name: string;
  merchant_id: number | null;
  shop_id: number | null;
  goods_id: number | null;
  is_deleted: Generated<boolean>;
}

export interface TicketsSkuTable extends Audit {
  id: Generated<number>;
  sku_id: number | null;
  merchant_id: number | null;
  shop_id: number | null;
  tickets_id: number | null;
  sku_name: string;
  type_id: string | null;
  type_info: string | null;
  stock_num_type: boolean | null;
  stock_date_type: boolean | null;
  book_type: number | null;
  book_time_limit: TimeOfDay;
  id_limit_flag: boolean | null;
  id_limit_days: number | null;
  id_limit_num: number | null;
  speed_info: string | null;
  base_price: number | null;
  content_with: string | null;
  content_without: string | null;
  enter_demand: string | null;
  enter_type: string | null;
  enter_change_flag: boolean | null;
  change_postion: string | null;
  change_start: TimeOfDay;
  change_end: TimeOfDay;
  enter_postion: string | null;
  enter_start: TimeOfDay;
  enter_end: TimeOfDay;
  refund_type: number | null;
  refund_days: number | null;
  refund_time: TimeOfDay;
  refund_policy: string | null;
  remark: string | null;
  receipt_policy: string | null;
  status: Generated<number>;
  is_deleted: Generated<boolean>;
}

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

export interface CardCheckTable extends Audit {
  id: Generated<number>;
  card_id: number;
  card_model_id: number;
  sku_id: number;
  resource_id: number;
  entrance_id: number | null;
  checker_id: number | null;
  tourist_name: string | null;
  tourist_mobile: string | null;
  tourist_card_no: string | null;
  tourist_face_photo: string | null;
  consume_num: Generated<number>;
  check_type: Generated<number>;
  status: Generated<number>;
  check_time: Timestamp;
  check_date: DateText;
  is_deleted: Generated<boolean>;
  /** the client's scan id (migration 0011_checkin): unique per verifier */
  nonce: string | null;
  /** entries left on the check's day for its card and resource, as answered at check-in */
  checks_left: number | null;
}

export interface DemoDatasetTable {
  id: Generated<number>;
  seed: number;
  scale: number;
  max_merchant_id: number;
  max_card_id: number;
  max_check_id: number;
  check_rows: number;
  created_at: Generated<Date>;
}

