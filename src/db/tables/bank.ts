import type { Generated } from 'kysely';
import type { Audit, NullableTimestamp, Timestamp } from './common.js';

/** The bank channel's records (migration 20261123_0013_bank). */

export interface ChannelBusinessTable extends Audit {
  id: Generated<number>;
  name: string;
  merchant_id: number;
  shop_id: number | null;
  channel_type: Generated<number>;
  contact_name: string | null;
  contact_phone: string | null;
  status: Generated<number>;
  is_deleted: Generated<boolean>;
}

export interface ChannelInfoTable extends Audit {
  id: Generated<number>;
  channel_business_id: number;
  name: string;
  card_model_id: number;
  merchant_id: number;
  shop_id: number | null;
  status: Generated<number>;
  is_deleted: Generated<boolean>;
}

export interface OpenapiChannelOperatorTable extends Audit {
  id: Generated<number>;
  channel_info_id: number;
  /** the operator's number in the bank's own system */
  operator_id: number;
  operator_name: string;
  total_card_num: number;
  day_card_num: number;
  status: Generated<number>;
  add_date: Timestamp;
  merchant_id: number | null;
  shop_id: number | null;
  is_deleted: Generated<boolean>;
}

export interface BankUserTable extends Audit {
  id: Generated<number>;
  mobile: string;
  password_hash: string;
  name: string;
  channel_business_id: number;
  /** the operator row this user activates for; null for a manager of the whole business */
  operator_id: number | null;
  permissions: Generated<string[]>;
  status: Generated<number>;
  last_login_at: NullableTimestamp;
  last_login_ip: string | null;
  is_deleted: Generated<boolean>;
}

export interface ChannelOrderTable extends Audit {
  id: Generated<number>;
  order_no: Generated<string>;
  channel_info_id: number;
  operator_id: number;
  bank_user_id: number | null;
  card_model_id: number;
  card_id: number | null;
  member_id: number | null;
  user_name: string;
  user_phone: string;
  user_id_type: number;
  user_idno: string;
  amount: Generated<number>;
  /** 1 created, 2 completed (its card bound) */
  status: Generated<number>;
}

export interface ActivationRecordTable extends Audit {
  id: Generated<number>;
  channel_info_id: number;
  operator_id: number;
  order_id: number;
  bank_user_id: number | null;
  card_id: number | null;
  card_number: string | null;
  member_id: number | null;
  user_name: string;
  user_phone: string;
  user_id_type: number;
  user_idno: string;
  /** the number upper-cased, letters and digits only: one person per channel (null: a duplicate from before migration 0026) */
  user_idno_key: string | null;
  /** 0 confirming, 1 bound */
  active_status: Generated<number>;
  active_time: Timestamp;
}

export interface ChannelOrderLogTable {
  id: Generated<number>;
  order_id: number;
  action: string;
  content: string | null;
  bank_user_id: number | null;
  created_at: Generated<Date>;
}
