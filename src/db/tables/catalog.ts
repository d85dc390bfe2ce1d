import type { Generated } from 'kysely';
import type { Audit, Numeric } from './common.js';
// Tables written only by the catalog module (docs/architecture.md §4.3).

/** time columns travel as 'HH:mm:ss' text */
type TimeOfDay = string | null;

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
