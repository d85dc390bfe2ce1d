import type { ColumnType, Generated } from 'kysely';
import type { Audit, Timestamp } from './common.js';

/** numeric percent, read as exact text */
type Percent = ColumnType<string, string | number, string | number>;

export interface DistributeBatchTable extends Audit {
  id: Generated<number>;
  batch_no: string;
  year: number;
  month: number;
  quarter: number;
  card_model_id: number;
  card_model_name: string;
  card_model_price: number;
  valid_user_count: number;
  total_distribute_amount: number;
  park_count: number;
  status: Generated<number>;
  exec_time: Timestamp;
  exec_by: number | null;
  ratio: number | null;
  calc_mode: string;
  fixed_amount: number | null;
  is_deleted: Generated<boolean>;
}

export interface DistributeDetailTable extends Audit {
  id: Generated<number>;
  batch_id: number;
  year: number;
  month: number;
  card_model_id: number;
  park_id: number;
  park_name: string;
  merchant_id: number | null;
  shop_id: number | null;
  check_num: number;
  distribute_percent: Percent;
  distribute_amount: number;
}

export interface DeferredRevenueLedgerTable extends Audit {
  id: Generated<number>;
  year: number;
  month: number;
  card_model_id: number;
  batch_id: number;
  recognised_amount: number;
  distributed_amount: number;
}
