import type { Generated } from 'kysely';
import type { Audit, NullableTimestamp, Numeric, Timestamp } from './common.js';

export interface RegionTable extends Audit {
  id: Generated<number>;
  name: string;
  parent_id: Generated<number>;
  short_name: string | null;
  level_type: number;
  city_code: string | null;
  zip_code: string | null;
  merger_name: string | null;
  lng: Numeric;
  lat: Numeric;
  pin_yin: string | null;
}

export interface RoleTable extends Audit {
  id: Generated<number>;
  code: string;
  name: string;
  permissions: Generated<string[]>;
  status: Generated<number>;
  merchant_id: number | null;
  shop_id: number | null;
  remark: string | null;
}

export interface AdminUserTable extends Audit {
  id: Generated<number>;
  username: string;
  password_hash: string;
  nickname: string | null;
  mobile: string | null;
  user_type: number;
  merchant_id: number | null;
  shop_id: number | null;
  dept_id: number | null;
  status: Generated<number>;
  last_login_at: NullableTimestamp;
  last_login_ip: string | null;
  is_deleted: Generated<boolean>;
}

export interface UserRoleTable {
  user_id: number;
  role_id: number;
}

export interface OAuth2TokenTable {
  id: Generated<number>;
  access_hash: string;
  refresh_hash: string;
  account_id: number;
  account_kind: string;
  channel: string;
  access_expires_at: Timestamp;
  refresh_expires_at: Timestamp;
  client_ip: string | null;
  session_id: string | null;
  created_at: Generated<Date>;
}

export interface OperateLogTable {
  id: Generated<number>;
  module: string;
  action: string;
  account_kind: string | null;
  account_id: number | null;
  account_name: string | null;
  ip: string | null;
  user_agent: string | null;
  method: string | null;
  path: string | null;
  biz_id: string | null;
  success: boolean;
  errcode: Generated<number>;
  duration_ms: number;
  created_at: Generated<Date>;
}

export interface LoginLogTable {
  id: Generated<number>;
  account_kind: string;
  account_id: number | null;
  username: string;
  ip: string | null;
  user_agent: string | null;
  success: boolean;
  errcode: Generated<number>;
  message: string | null;
  created_at: Generated<Date>;
}

export interface OpenAppTable extends Audit {
  id: Generated<number>;
  app_key: string;
  app_secret: string;
  name: string;
  status: Generated<number>;
}
