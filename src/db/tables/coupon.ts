import type { ColumnType, Generated } from 'kysely';
import type { Audit, NullableTimestamp, Timestamp } from './common.js';

export interface CouponTemplateTable extends Audit {
  id: Generated<number>;
  merchant_id: number | null;
  shop_id: number | null;
  coupon_type: Generated<number>;
  name: string;
  description: string | null;
  status: Generated<number>;
  total_count: number;
  take_limit_count: number;
  take_type: number;
  use_price: Generated<number>;
  product_scope: Generated<number>;
  product_scope_values: ColumnType<number[], number[] | undefined, number[]>;
  validity_type: number;
  valid_start_time: NullableTimestamp;
  valid_end_time: NullableTimestamp;
  fixed_start_term: number | null;
  fixed_end_term: number | null;
  discount_type: number;
  discount_percent: number | null;
  discount_price: number | null;
  discount_limit_price: number | null;
  is_deleted: Generated<boolean>;
}

export interface CouponTable extends Audit {
  id: Generated<number>;
  template_id: number;
  merchant_id: number | null;
  shop_id: number | null;
  member_id: number | null;
  mobile: string;
  channel: number | null;
  take_type: number;
  status: Generated<number>;
  valid_start_time: Timestamp;
  valid_end_time: Timestamp;
  use_time: NullableTimestamp;
  is_deleted: Generated<boolean>;
}
