import type { Generated } from 'kysely';
import type { Audit, NullableTimestamp } from './common.js';

export interface MerchantContractTable extends Audit {
  id: Generated<number>;
  merchant_id: number | null;
  shop_id: number | null;
  contract_type: number;
  merchant_a: number | null;
  shop_a: number | null;
  merchant_b: number | null;
  shop_b: number | null;
  sign_time: NullableTimestamp;
  begin_date: NullableTimestamp;
  end_date: NullableTimestamp;
  is_deleted: Generated<boolean>;
}
