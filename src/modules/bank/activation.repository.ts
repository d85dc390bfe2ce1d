import { sql } from 'kysely';
import type { Trx } from '../../platform/db/transaction.js';

/** The writes of one activation (docs/domain.md §5), all on the service's transaction. */

export const PHONE_ACTIVATED_INDEX = 'activation_record_phone_uq';
export const IDNO_ACTIVATED_INDEX = 'activation_record_idno_uq';

export const ActiveStatus = { CONFIRMING: 0, BOUND: 1 } as const;
export const OrderStatus = { CREATED: 1, COMPLETED: 2 } as const;

/** The operator, its channel and the bank, with the card kind the channel activates. */
export interface OperatorChannel {
  operatorRowId: number;
  operatorName: string;
  totalCardNum: number;
  dayCardNum: number;
  enabled: boolean;
  channelInfoId: number;
  businessId: number;
  merchantId: number;
  channelType: number;
  cardModelId: number;
  cardModelName: string;
  cardModelPrice: number;
  validityMonths: number;
}

export interface Person {
  name: string;
  phone: string;
  idType: number;
  /** in its stored form (activation.service idNumberKey): also the record's user_idno_key */
  idNo: string;
}

/**
 * Whether the bank's merchant is enabled, its row locked to the end of the activation: a concurrent
 * disable waits for the activation, or commits first and is seen here.
 */
export async function merchantEnabled(trx: Trx, merchantId: number): Promise<boolean> {
  const r = await trx
    .selectFrom('merchant')
    .select(['status', 'is_deleted'])
    .where('id', '=', merchantId)
    .forShare()
    .executeTakeFirst();
  return r !== undefined && r.status === 1 && !r.is_deleted;
}

export async function findOperatorChannel(trx: Trx, operatorRowId: number): Promise<OperatorChannel | null> {
  const r = await trx
    .selectFrom('openapi_channel_operator as o')
    .innerJoin('channel_info as c', 'c.id', 'o.channel_info_id')
    .innerJoin('channel_business as b', 'b.id', 'c.channel_business_id')
    .innerJoin('card_model as m', 'm.id', 'c.card_model_id')
    .select([
      'o.id',
      'o.operator_name',
      'o.total_card_num',
      'o.day_card_num',
      'o.status',
      'o.is_deleted',
      'c.id as channel_info_id',
      'c.status as channel_status',
      'c.is_deleted as channel_deleted',
      'b.id as business_id',
      'b.merchant_id',
      'b.channel_type',
      'b.status as business_status',
      'b.is_deleted as business_deleted',
      'm.id as card_model_id',
      'm.name as card_model_name',
      'm.price',
      'm.validity_months',
    ])
    .where('o.id', '=', operatorRowId)
    .executeTakeFirst();
  if (!r) return null;
  return {
    operatorRowId: r.id,
    operatorName: r.operator_name,
    totalCardNum: r.total_card_num,
    dayCardNum: r.day_card_num,
    enabled:
      r.status === 1 &&
      !r.is_deleted &&
      r.channel_status === 1 &&
      !r.channel_deleted &&
      r.business_status === 1 &&
      !r.business_deleted,
    channelInfoId: r.channel_info_id,
    businessId: r.business_id,
    merchantId: r.merchant_id,
    channelType: r.channel_type,
    cardModelId: r.card_model_id,
    cardModelName: r.card_model_name,
    cardModelPrice: r.price,
    validityMonths: r.validity_months,
  };
}

/** Activations of the operator, in all and since `dayStart` (the quota counts: every record counts). */
export async function quotaUsage(
  trx: Trx,
  operatorRowId: number,
  dayStart: Date,
): Promise<{ total: number; today: number }> {
  const r = await trx
    .selectFrom('activation_record')
    .select([
      sql<string>`count(*)`.as('total'),
      sql<string>`count(*) filter (where active_time >= ${dayStart})`.as('today'),
    ])
    .where('operator_id', '=', operatorRowId)
    .executeTakeFirstOrThrow();
  return { total: Number(r.total), today: Number(r.today) };
}

/**
 * Which of the person's phone and ID number already has an activation in the channel. The number is
 * compared whatever document type either activation declared: a driving licence or residence permit
 * carrying an ID card's number is the same person.
 */
export async function findActivated(trx: Trx, channelInfoId: number, p: Person): Promise<'phone' | 'idNo' | null> {
  const rows = await trx
    .selectFrom('activation_record')
    .select(['user_phone'])
    .where('channel_info_id', '=', channelInfoId)
    .where((eb) => eb.or([eb('user_phone', '=', p.phone), eb('user_idno_key', '=', p.idNo)]))
    .limit(2)
    .execute();
  if (rows.length === 0) return null;
  return rows.some((r) => r.user_phone === p.phone) ? 'phone' : 'idNo';
}

export async function insertOrder(
  trx: Trx,
  v: { channel: OperatorChannel; bankUserId: number; memberId: number; person: Person },
): Promise<{ id: number; orderNo: string }> {
  const r = await trx
    .insertInto('channel_order')
    .values({
      channel_info_id: v.channel.channelInfoId,
      operator_id: v.channel.operatorRowId,
      bank_user_id: v.bankUserId,
      card_model_id: v.channel.cardModelId,
      member_id: v.memberId,
      user_name: v.person.name,
      user_phone: v.person.phone,
      user_id_type: v.person.idType,
      user_idno: v.person.idNo,
      amount: v.channel.cardModelPrice,
      status: OrderStatus.CREATED,
      created_by: v.bankUserId,
      updated_by: v.bankUserId,
    })
    .returning(['id', 'order_no'])
    .executeTakeFirstOrThrow();
  return { id: r.id, orderNo: r.order_no };
}

export async function insertActivation(
  trx: Trx,
  v: { channel: OperatorChannel; orderId: number; bankUserId: number; memberId: number; person: Person; at: Date },
): Promise<number> {
  const r = await trx
    .insertInto('activation_record')
    .values({
      channel_info_id: v.channel.channelInfoId,
      operator_id: v.channel.operatorRowId,
      order_id: v.orderId,
      bank_user_id: v.bankUserId,
      member_id: v.memberId,
      user_name: v.person.name,
      user_phone: v.person.phone,
      user_id_type: v.person.idType,
      user_idno: v.person.idNo,
      user_idno_key: v.person.idNo,
      active_status: ActiveStatus.CONFIRMING,
      active_time: v.at,
      created_by: v.bankUserId,
      updated_by: v.bankUserId,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

/** The record moves from confirming to bound, and the order completes, with the card they name. */
export async function completeActivation(
  trx: Trx,
  v: { activationId: number; orderId: number; card: { id: number; cardNumber: string }; bankUserId: number },
): Promise<void> {
  await trx
    .updateTable('activation_record')
    .set({
      active_status: ActiveStatus.BOUND,
      card_id: v.card.id,
      card_number: v.card.cardNumber,
      updated_by: v.bankUserId,
      updated_at: new Date(),
    })
    .where('id', '=', v.activationId)
    .execute();
  await trx
    .updateTable('channel_order')
    .set({ status: OrderStatus.COMPLETED, card_id: v.card.id, updated_by: v.bankUserId, updated_at: new Date() })
    .where('id', '=', v.orderId)
    .execute();
}

export async function insertOrderLog(
  trx: Trx,
  v: { orderId: number; action: string; content: string; bankUserId: number },
): Promise<void> {
  await trx
    .insertInto('channel_order_log')
    .values({ order_id: v.orderId, action: v.action, content: v.content.slice(0, 512), bank_user_id: v.bankUserId })
    .execute();
}
