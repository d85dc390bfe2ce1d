import type { Generated } from 'kysely';
import type { Audit } from './common.js';

export interface CustomDisTable extends Audit {
  id: Generated<number>;
  merchant_id: number | null;
  shop_id: number | null;
  name: string | null;
  contact: string | null;
  phone: string | null;
  remark: string | null;
  status: Generated<number>;
  is_deleted: Generated<boolean>;
}

export interface CustomDisUserTable extends Audit {
  id: Generated<number>;
  custom_dis_id: number | null;
  merchant_id: number | null;
  shop_id: number | null;
  name: string | null;
  mobile: string | null;
  remark: string | null;
  status: Generated<number>;
  is_deleted: Generated<boolean>;
}
