import type { Generated } from 'kysely';
import type { Audit, NullableTimestamp } from './common.js';
// Tables written only by the staff module (docs/architecture.md §4.3).

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
