import type { Generated } from 'kysely';
import type { Audit } from './common.js';

export interface SalesTable extends Audit {
  id: Generated<number>;
  name: string;
  dept_id: number;
  merchant_id: number | null;
  shop_id: number | null;
  phone: string | null;
  invite_code: string | null;
  qrcode: string | null;
  is_deleted: Generated<boolean>;
}
