import type { Generated } from 'kysely';
import type { Audit } from './common.js';
// Tables written only by the merchant module (docs/architecture.md §4.3).

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

export interface MerchantFinanceTable extends Audit {
  id: Generated<number>;
  merchant_id: number;
  shop_id: number | null;
  ebank_type: Generated<number>;
  name: string;
  bank: string;
  bank_account: string;
  is_deleted: Generated<boolean>;
}
