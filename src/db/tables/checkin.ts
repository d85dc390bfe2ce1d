import type { ColumnType, Generated } from 'kysely';
import type { Timestamp } from './common.js';

/** date columns travel as 'YYYY-MM-DD' text */
type DateText = ColumnType<string, string, string>;

/** Entries used per card, resource and day (the exact daily limit of check-in). */
export interface CardCheckDayCountTable {
  card_id: number;
  resource_id: number;
  check_date: DateText;
  used: number;
  updated_at: Generated<Date>;
}

/** A refused scan and the reason the verifier was given. */
export interface CardCheckFailTable {
  id: Generated<number>;
  checker_id: number;
  merchant_id: number | null;
  shop_id: number | null;
  sku_id: number | null;
  entrance_id: number | null;
  card_id: number | null;
  card_number: string | null;
  id_type: number | null;
  id_no: string | null;
  face_photo: string | null;
  check_type: number | null;
  consume_num: number | null;
  check_time: Timestamp;
  errcode: number;
  reason: string;
  nonce: string | null;
  created_at: Generated<Date>;
}
