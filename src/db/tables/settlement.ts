import type { ColumnType, Generated, JSONColumnType } from 'kysely';
import type { Audit, Timestamp, NullableTimestamp } from './common.js';
// Tables written only by the settlement module (docs/architecture.md §4.3).

/** numeric factors, read as exact text */
type Factor = ColumnType<string, string | number | undefined, string | number>;

/** One dated price period of a way-1 detail (spec A 2.6 ticketPriceInfo). */
export interface TicketPriceRow {
  startDate: string;
  endDate: string;
  price: number;
  checkNum: number;
  ticketTotalAmount: number;
  settlementFactor: number;
  settlementAmount: number;
}

type PriceInfo = JSONColumnType<TicketPriceRow[], string, string>;

export interface EstimationSheetTable extends Audit {
  id: Generated<number>;
  estimation_no: string;
  card_model_id: number;
  card_model_name: string;
  start_time: Timestamp;
  end_time: Timestamp;
  issue_num: number;
  profit: number;
  total_amount: number;
  check_num: number;
  scenery_num: number;
  check_watermark: Generated<number>;
}

interface DetailColumns extends Audit {
  id: Generated<number>;
  resource_id: number;
  scenery_name: string;
  merchant_id: number | null;
  shop_id: number | null;
  settlement_way: number;
  check_num: number;
  ticket_price_info: PriceInfo;
  estimation_factor: Factor;
  settlement_amount: number;
  increase_amount: Generated<number>;
  decrease_amount: Generated<number>;
  settlement_amount_actual: number;
}

export interface EstimationDetailTable extends DetailColumns {
  sheet_id: number;
  virtual_id: number;
}

export interface SettlementTable extends Audit {
  id: Generated<number>;
  settlement_no: string;
  estimation_id: number | null;
  card_model_id: number;
  card_model_name: string;
  start_time: Timestamp;
  end_time: Timestamp;
  issue_num: number;
  profit: number;
  total_amount: number;
  check_num: number;
  settlement_merchant_id: number;
  settlement_merchant_name: string;
  settlement_status: Generated<number>;
  settlement_files: string | null;
  remark: string | null;
  paid_amount: Generated<number>;
  afresh_by: number | null;
  afresh_time: NullableTimestamp;
}

export interface SettlementDetailTable extends DetailColumns {
  settlement_id: number;
}

export interface SettlementCheckDetailTable {
  id: Generated<number>;
  settlement_id: number;
  settlement_detail_id: number;
  check_id: number;
  card_model_name: string | null;
  scenery_name: string | null;
  tourist_name: string | null;
  tourist_phone: string | null;
  card_number: string | null;
  check_time: Timestamp;
  checker_id: number | null;
  checker_name: string | null;
  consume_num: Generated<number>;
  created_at: Generated<Date>;
}

export interface SettlementPaymentTable extends Audit {
  id: Generated<number>;
  settlement_id: number;
  amount: number;
  voucher: string | null;
  paid_by: number | null;
  paid_at: Generated<Date>;
}

export interface SettlementLogTable {
  id: Generated<number>;
  settlement_id: number;
  settlement_no: string;
  action: string;
  from_status: number | null;
  to_status: number | null;
  remark: string | null;
  account_id: number | null;
  created_at: Generated<Date>;
}
