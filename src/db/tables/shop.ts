import type { Generated } from 'kysely';
import type { Audit } from './common.js';
// Tables written only by the shop module (docs/architecture.md §4.3).

export interface ShopTable extends Audit {
  id: Generated<number>;
  merchant_id: number;
  name: string;
  logo: string | null;
  type_id: number | null;
  sub_type_id: number | null;
  status: Generated<number>;
  province_id: string | null;
  city_id: string | null;
  district_id: string | null;
  address: string | null;
  mobile: string | null;
  linkman: string | null;
  linkphone: string | null;
  manager: string | null;
  level: string | null;
  lng: string | null;
  lat: string | null;
  introduction: string | null;
  business_time: string | null;
  tags: string | null;
  main_pic: string | null;
  propagate_pic: string | null;
  video: string | null;
  poster: string | null;
  propagate_content: string | null;
  description: string | null;
  ticket_info: string | null;
  traffic_info: string | null;
  tips: string | null;
  third_id: string | null;
  third_name: string | null;
  is_deleted: Generated<boolean>;
}

export interface ShopRelationTable extends Audit {
  id: Generated<number>;
  shop_id: number;
  third_name: string | null;
  third_id: string | null;
  channel_type: number | null;
  remark: string | null;
}
