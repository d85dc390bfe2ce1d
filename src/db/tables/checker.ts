import type { Generated } from 'kysely';
import type { Audit, Timestamp, DateText } from './common.js';
// Tables written only by the checker module (docs/architecture.md §4.3).

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
  /** the client's scan id (migration 0011_checkin): unique per verifier through card_check_nonce (migration 0032) */
  nonce: string | null;
  /** entries left on the check's day for its card and resource, as answered at check-in */
  checks_left: number | null;
}

/**
 * A verifier's scan id of a check (migration 0032): unique per verifier, pointing at its check by id
 * and check time (card_check is partitioned by check time). Kept as long as the check.
 */
export interface CardCheckNonceTable {
  checker_id: number;
  nonce: string;
  check_id: number;
  check_time: Timestamp;
}

/** A verifier's scan id of a refusal (migration 0032), kept as long as its failed-scan log row. */
export interface CardCheckFailNonceTable {
  checker_id: number;
  nonce: string;
  fail_id: number;
  created_at: Timestamp;
}

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

/** A scenic spot's (SKU's) capacity (migration 0033); null daily_capacity: only its slots bound it. */
export interface SpotCapacityTable extends Audit {
  sku_id: number;
  merchant_id: number;
  shop_id: number | null;
  daily_capacity: number | null;
}

/** A time slot of a spot's day with its own capacity, in minutes of the day [start, end). */
export interface SpotCapacitySlotTable {
  sku_id: number;
  start_minute: number;
  end_minute: number;
  capacity: number;
}

/** Entries admitted per spot, day and slot (slot_minute -1: the whole day), for spots with a capacity. */
export interface SpotAdmissionCountTable {
  sku_id: number;
  check_date: DateText;
  slot_minute: number;
  admitted: number;
  updated_at: Generated<Date>;
}

/** A check recorded from an offline gate although it broke a bound (ConflictKind), for the manage channel. */
export interface CardCheckConflictTable {
  id: Generated<number>;
  check_id: number;
  check_time: Timestamp;
  card_id: number;
  sku_id: number;
  resource_id: number;
  merchant_id: number;
  shop_id: number | null;
  checker_id: number | null;
  kind: number;
  limit_value: number;
  count_value: number;
  created_at: Generated<Date>;
}

/** The Ed25519 key offline packs are signed with when none is configured (migration 0034): one row. */
export interface OfflinePackKeyTable {
  id: Generated<number>;
  key_id: string;
  /** base64 of the PKCS#8 DER bytes */
  private_key: string;
  created_at: Generated<Date>;
}
