import type { ColumnType, Generated } from 'kysely';
import type { Audit, NullableTimestamp, Numeric, Timestamp } from './common.js';

/** date columns travel as 'YYYY-MM-DD' text, time columns as 'HH:mm:ss' text */
type DateText = ColumnType<string, string, string>;
type TextList = ColumnType<string[], string[] | undefined, string[]>;

export interface HotelInfoTable extends Audit {
  id: Generated<number>;
  merchant_id: number;
  shop_id: number;
  name: string;
  grade: number | null;
  type: Generated<number>;
  status: Generated<number>;
  opening_year: number | null;
  room_count: number | null;
  phone: string | null;
  address: string | null;
  landmark: string | null;
  province_id: string | null;
  city_id: string | null;
  district_id: string | null;
  longitude: Numeric;
  latitude: Numeric;
  cover_image: string | null;
  images: TextList;
  tags: TextList;
  location_tags: TextList;
  highlights: TextList;
  is_deleted: Generated<boolean>;
}

export interface HotelRoomTypeTable extends Audit {
  id: Generated<number>;
  merchant_id: number;
  shop_id: number;
  hotel_id: number;
  name: string;
  base_price: number;
  cover_image: string | null;
  images: TextList;
  status: Generated<number>;
  sort: Generated<number>;
  room_type_area: string | null;
  floor_info: string | null;
  window_type: number | null;
  bed_info: string | null;
  guests: number | null;
  smoking: number | null;
  network_type: number | null;
  extra_bed_allowed: Generated<boolean>;
  extra_bed_desc: string | null;
  is_deleted: Generated<boolean>;
}

export interface HotelPlanTable extends Audit {
  id: Generated<number>;
  hotel_id: number;
  room_type_id: number;
  name: string;
  auto_confirm: Generated<boolean>;
  breakfast: Generated<number>;
  base_price: number;
  sale_price: number;
  stock_type: Generated<number>;
  stock_num: number | null;
  cancel_type: Generated<number>;
  cancel_days: number | null;
  cancel_hours: number | null;
  sort: Generated<number>;
  status: Generated<number>;
  is_deleted: Generated<boolean>;
}

export interface HotelOrderTable extends Audit {
  id: Generated<number>;
  order_no: string;
  channel: number | null;
  merchant_id: number;
  shop_id: number;
  hotel_id: number;
  room_type_id: number;
  plan_id: number;
  purchase_date: Timestamp;
  check_in_date: DateText;
  check_out_date: DateText;
  expected_arrival_time: string | null;
  actual_checkin_time: NullableTimestamp;
  actual_checkout_time: NullableTimestamp;
  stay_nights: number;
  room_num: number;
  original_amount: number;
  discount_amount: Generated<number>;
  total_amount: number;
  paid_amount: Generated<number>;
  coupon_id: number | null;
  coupon_amount: Generated<number>;
  guest_id: number | null;
  guest_num: number | null;
  breakfast_num: Generated<number>;
  cancel_type: number | null;
  cancel_time: NullableTimestamp;
  member_id: number | null;
  contact_name: string | null;
  contact_phone: string | null;
  remark: string | null;
  review_status: Generated<number>;
  payment_status: Generated<number>;
  status: Generated<number>;
  order_express_time: NullableTimestamp;
  is_deleted: Generated<boolean>;
}

export interface HotelOrderRoomTable extends Audit {
  id: Generated<number>;
  order_id: number;
  room_type_id: number;
  plan_id: number;
  price_calendar_id: number | null;
  room_name: string;
  room_date: DateText;
  room_num: number;
  room_price: number;
  total_price: number;
  status: Generated<number>;
  checked_out_num: Generated<number>;
  is_deleted: Generated<boolean>;
}
