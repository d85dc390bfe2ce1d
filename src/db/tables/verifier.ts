import type { Generated } from 'kysely';
import type { Audit, NullableTimestamp } from './common.js';
// Tables written only by the verifier module (docs/architecture.md §4.3).

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
