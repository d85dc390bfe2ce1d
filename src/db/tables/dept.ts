import type { Generated } from 'kysely';
import type { Audit } from './common.js';
// Tables written only by the dept module (docs/architecture.md §4.3).

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
