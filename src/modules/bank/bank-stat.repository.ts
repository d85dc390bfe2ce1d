import { sql, type Expression, type SqlBool } from 'kysely';
import type { DateRange } from '../../platform/date-range.js';
import type { Executor } from '../../platform/db/executor.js';
import { paginate } from '../../platform/db/paginate.js';
import { containsPattern } from '../../platform/db/text-match.js';
import type { Page, PageRequest } from '../../platform/http/paging.js';
import { LIST_MAX_ROWS } from '../../platform/http/schemas.js';
import { formatDateTime } from '../../platform/time.js';
import type { BankRelations } from './bank-user.repository.js';
import type { BankStatResponse, OpenapiChannelOperator } from './bank.schemas.js';

/** The bank's operators and their activations, as its staff see them (bankOperatorList, bankStat, details, export). */

export interface OperatorFilter {
  operatorId?: number | null;
  operatorName?: string | null;
}

export interface RecordFilter {
  userPhone?: string | null;
  cardNumber?: string | null;
  activeTime?: DateRange | null;
  activeStatus?: number | null;
}

/**
 * The operators a bank session may see: every operator of its bank's channels, or only its own when
 * the user is an operator. Written against the aliases `o` (operator) and `c` (channel_info).
 */
function visible(rel: BankRelations, f: OperatorFilter = {}): Expression<SqlBool> {
  const conds = [sql<SqlBool>`c.channel_business_id = ${rel.businessId}`, sql<SqlBool>`not o.is_deleted`];
  if (rel.operator) conds.push(sql<SqlBool>`o.id = ${rel.operator.id}`);
  if (f.operatorId != null) conds.push(sql<SqlBool>`o.operator_id = ${f.operatorId}`);
  const name = f.operatorName?.trim();
  if (name) conds.push(sql<SqlBool>`o.operator_name ilike ${containsPattern(name)}`);
  return sql<SqlBool>`(${sql.join(conds, sql` and `)})`;
}

/** Conditions on the activation records (alias `a`); `true` when there are none. */
function recordCondition(f: RecordFilter): Expression<SqlBool> {
  const conds: Expression<SqlBool>[] = [];
  const phone = f.userPhone?.trim();
  if (phone) conds.push(sql<SqlBool>`a.user_phone = ${phone}`);
  const card = f.cardNumber?.trim();
  if (card) conds.push(sql<SqlBool>`a.card_number = ${card}`);
  if (f.activeTime) conds.push(sql<SqlBool>`a.active_time between ${f.activeTime.start} and ${f.activeTime.end}`);
  if (f.activeStatus != null) conds.push(sql<SqlBool>`a.active_status = ${f.activeStatus}`);
  return conds.length ? sql<SqlBool>`(${sql.join(conds, sql` and `)})` : sql<SqlBool>`true`;
}

export async function listOperators(db: Executor, rel: BankRelations): Promise<OpenapiChannelOperator[]> {
  const rows = await db
    .selectFrom('openapi_channel_operator as o')
    .innerJoin('channel_info as c', 'c.id', 'o.channel_info_id')
    .select([
      'o.id',
      'o.channel_info_id',
      'o.operator_id',
      'o.operator_name',
      'o.total_card_num',
      'o.day_card_num',
      'o.status',
      'o.add_date',
      'o.merchant_id',
      'o.shop_id',
    ])
    .where(visible(rel))
    .orderBy('o.id')
    .limit(LIST_MAX_ROWS)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    channelInfoId: r.channel_info_id,
    operatorId: r.operator_id,
    operatorName: r.operator_name,
    totalCardNum: r.total_card_num,
    dayCardNum: r.day_card_num,
    status: r.status,
    addDate: formatDateTime(r.add_date),
    merchantId: r.merchant_id,
    shopId: r.shop_id,
  }));
}

/**
 * One row per visible operator matching the operator filters, by operator: `num` counts its
 * activations matching the record filters, `totalNum` all of them, `dayNum` those since `dayStart`.
 */
export function pageStat(
  db: Executor,
  rel: BankRelations,
  f: OperatorFilter & RecordFilter,
  dayStart: Date,
  page: PageRequest,
): Promise<Page<BankStatResponse>> {
  const grouped = db
    .selectFrom('openapi_channel_operator as o')
    .innerJoin('channel_info as c', 'c.id', 'o.channel_info_id')
    .leftJoin('activation_record as a', 'a.operator_id', 'o.id')
    .select([
      'o.id',
      'o.operator_id',
      'o.operator_name',
      sql<string>`count(a.id) filter (where ${recordCondition(f)})`.as('num'),
      sql<string>`count(a.id)`.as('total_num'),
      sql<string>`count(a.id) filter (where a.active_time >= ${dayStart})`.as('day_num'),
    ])
    .where(visible(rel, f))
    .groupBy(['o.id', 'o.operator_id', 'o.operator_name']);
  const query = db.selectFrom(grouped.as('g')).selectAll().orderBy('g.id');
  return paginate(db, query, page, (r) => ({
    operatorName: r.operator_name,
    num: Number(r.num),
    operatorId: r.operator_id,
    totalNum: Number(r.total_num),
    dayNum: Number(r.day_num),
  }));
}

export interface ActivationRow {
  id: number;
  activeTime: Date;
  cardNumber: string | null;
  userName: string;
  userPhone: string;
  userIdType: number;
  userIdno: string;
  orderNo: string;
  activeStatus: number;
}

function activations(db: Executor, rel: BankRelations, f: OperatorFilter & RecordFilter) {
  return db
    .selectFrom('activation_record as a')
    .innerJoin('openapi_channel_operator as o', 'o.id', 'a.operator_id')
    .innerJoin('channel_info as c', 'c.id', 'o.channel_info_id')
    .innerJoin('channel_order as r', 'r.id', 'a.order_id')
    .where(visible(rel, f))
    .where(recordCondition(f));
}

export function pageActivations(
  db: Executor,
  rel: BankRelations,
  f: OperatorFilter & RecordFilter,
  page: PageRequest,
): Promise<Page<ActivationRow>> {
  const query = activations(db, rel, f)
    .select([
      'a.id',
      'a.active_time',
      'a.card_number',
      'a.user_name',
      'a.user_phone',
      'a.user_id_type',
      'a.user_idno',
      'r.order_no',
      'a.active_status',
    ])
    .orderBy('a.id', 'desc');
  return paginate(db, query, page, (r) => ({
    id: r.id,
    activeTime: r.active_time,
    cardNumber: r.card_number,
    userName: r.user_name,
    userPhone: r.user_phone,
    userIdType: r.user_id_type,
    userIdno: r.user_idno,
    orderNo: r.order_no,
    activeStatus: r.active_status,
  }));
}

export interface ExportRow extends ActivationRow {
  operatorId: number;
  operatorName: string;
  cardModelName: string;
}

/**
 * A keyset batch of the export, by activation id: the holder's name, phone and document come from
 * the card binding when there is one (it may have been corrected since), else from the record.
 */
export async function exportBatch(
  db: Executor,
  rel: BankRelations,
  f: OperatorFilter & RecordFilter,
  afterId: number,
  limit: number,
): Promise<ExportRow[]> {
  const rows = await activations(db, rel, f)
    .innerJoin('card_model as m', 'm.id', 'c.card_model_id')
    .leftJoin('card_binding as b', (j) => j.onRef('b.card_id', '=', 'a.card_id').on('b.is_deleted', '=', false))
    .select([
      'a.id',
      'a.active_time',
      'a.card_number',
      'r.order_no',
      'a.active_status',
      'o.operator_id',
      'o.operator_name',
      'm.name as card_model_name',
      sql<string>`coalesce(b.name, a.user_name)`.as('user_name'),
      sql<string>`coalesce(b.phone, a.user_phone)`.as('user_phone'),
      sql<number>`coalesce(b.id_type, a.user_id_type)`.as('user_id_type'),
      sql<string>`coalesce(b.id_no, a.user_idno)`.as('user_idno'),
    ])
    .where('a.id', '>', afterId)
    .orderBy('a.id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    activeTime: r.active_time,
    cardNumber: r.card_number,
    userName: r.user_name,
    userPhone: r.user_phone,
    userIdType: Number(r.user_id_type),
    userIdno: r.user_idno,
    orderNo: r.order_no,
    activeStatus: r.active_status,
    operatorId: r.operator_id,
    operatorName: r.operator_name,
    cardModelName: r.card_model_name,
  }));
}
