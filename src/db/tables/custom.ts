import type { Generated } from 'kysely';
import type { Audit } from './common.js';

export interface CustomDisTable extends Audit {
  id: Generated<number>;
  merchant_id: number | null;
  shop_id: number | null;
  name: string;
  contact: string | null;
  phone: string | null;
  remark: string | null;
  status: Generated<number>;
  is_deleted: Generated<boolean>;
}

export interface CustomDisUserTable extends Audit {
  id: Generated<number>;
  custom_dis_id: number;
  merchant_id: number | null;
  shop_id: number | null;
  name: string;
  mobile: string;
  remark: string | null;
  status: Generated<number>;
  is_deleted: Generated<boolean>;
}
