import type { Generated } from 'kysely';
import type { Audit, NullableTimestamp } from './common.js';

export interface MerchantTable extends Audit {
  id: Generated<number>;
  name: string;
  merchant_type: Generated<number>;
  contact_name: string | null;
  contact_phone: string | null;
  address: string | null;
  remark: string | null;
  status: Generated<number>;
  is_deleted: Generated<boolean>;
}

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

export interface DeptTable extends Audit {
  id: Generated<number>;
  merchant_id: number | null;
  shop_id: number | null;
  name: string;
  parent_id: Generated<number>;
  sort: Generated<number>;
  leader_user_id: number | null;
  phone: string | null;
  email: string | null;
  tenant_id: number | null;
  is_enabled: Generated<boolean>;
  is_deleted: Generated<boolean>;
}

export interface CheckerTable extends Audit {
  id: Generated<number>;
  mobile: string;
  password_hash: string;
  name: string;
  merchant_id: number;
  shop_id: number | null;
  status: Generated<number>;
  ssk_flag: Generated<boolean>;
  last_login_at: NullableTimestamp;
  last_login_ip: string | null;
  is_deleted: Generated<boolean>;
}

export interface CheckerRelationTable extends Audit {
  id: Generated<number>;
  checker_id: number;
  sku_id: number;
  entrance_id: number | null;
  merchant_id: number | null;
  shop_id: number | null;
  last_login_at: NullableTimestamp;
}

export interface CheckerConfigTable extends Audit {
  id: Generated<number>;
  checker_id: number | null;
  name: string | null;
  config_type: number | null;
  item: string | null;
  value: string | null;
  remark: string | null;
  merchant_id: number | null;
  shop_id: number | null;
  is_deleted: Generated<boolean>;
}

export interface MemberTable extends Audit {
  id: Generated<number>;
  open_id: string | null;
  mobile: string | null;
  status: Generated<number>;
  register_ip: string | null;
  register_terminal: number | null;
  login_ip: string | null;
  login_date: NullableTimestamp;
  nickname: string | null;
  avatar: string | null;
  name: string | null;
  sex: number | null;
  area_id: number | null;
  birthday: string | null;
  mark: string | null;
  point: Generated<number>;
  tag_ids: string | null;
  level_id: number | null;
  experience: Generated<number>;
  group_id: number | null;
  channel: number | null;
  third_id: string | null;
  password_hash: string | null;
  is_deleted: Generated<boolean>;
}

/** Living members by status and channel (0: none), in 16 slots per pair, kept by a trigger (migration 0029). */
export interface MemberTallyTable {
  status: number;
  channel: number;
  slot: number;
  living: number;
}

export interface MemberContactsTable extends Audit {
  id: Generated<number>;
  member_id: number;
  name: string;
  id_type: number | null;
  identity_no: string;
  phone: string;
  face_photo: string | null;
  is_deleted: Generated<boolean>;
}

export interface MemberFaceTable extends Audit {
  id: Generated<number>;
  member_id: number;
  contact_id: number | null;
  person_id: string;
  provider: string;
  photo_url: string | null;
  is_deleted: Generated<boolean>;
}

