import { sql } from 'kysely';
import type { Trx } from '../../platform/db/transaction.js';

// A bank channel activates one card of its pool for its customer (docs/domain.md §5); the card and
// binding rows are this module's, so the bank module calls these inside its activation transaction.

const CardStatus = { UNBOUND: 1, BOUND: 2 } as const;

/**
 * Takes one card of the channel's pool (unactivated cards of the bank's merchant, channel type and
 * card kind) and locks it; a card another transaction holds is skipped rather than waited for.
 */
export async function takePoolCard(
  trx: Trx,
  channel: { merchantId: number; channelType: number; cardModelId: number },
): Promise<{ id: number; cardNumber: string } | null> {
  const r = await trx
    .selectFrom('card')
    .select(['id', 'card_number'])
    .where('merchant_id', '=', channel.merchantId)
    .where('channel', '=', channel.channelType)
    .where('card_model_id', '=', channel.cardModelId)
    .where('status', '=', CardStatus.UNBOUND)
    .where('active_time', 'is', null)
    .where('is_deleted', '=', false)
    .orderBy('id')
    .limit(1)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
  return r ? { id: r.id, cardNumber: r.card_number } : null;
}

/** Activates and binds the locked pool card: valid from `at` for the card kind's months. */
export async function activatePoolCard(
  trx: Trx,
  v: { cardId: number; at: Date; validityMonths: number; orderNo: string; bankUserId: number },
): Promise<Date> {
  const r = await trx
    .updateTable('card')
    .set({
      status: CardStatus.BOUND,
      active_time: v.at,
      expire_time: sql<Date>`${v.at}::timestamptz + make_interval(months => ${v.validityMonths})`,
      order_no: v.orderNo,
      updated_by: v.bankUserId,
      updated_at: v.at,
    })
    .where('id', '=', v.cardId)
    .where('status', '=', CardStatus.UNBOUND)
    .where('active_time', 'is', null)
    .returning('expire_time')
    .executeTakeFirst();
  if (!r?.expire_time) throw new Error(`pool card ${v.cardId} was taken by another transaction`);
  return r.expire_time;
}

export async function bindActivatedCard(
  trx: Trx,
  v: {
    cardId: number;
    memberId: number;
    person: { name: string; phone: string; idType: number; idNo: string };
    at: Date;
    bankUserId: number;
  },
): Promise<void> {
  await trx
    .insertInto('card_binding')
    .values({
      card_id: v.cardId,
      member_id: v.memberId,
      name: v.person.name,
      phone: v.person.phone,
      id_type: v.person.idType,
      id_no: v.person.idNo,
      bound_at: v.at,
      created_by: v.bankUserId,
      updated_by: v.bankUserId,
    })
    .execute();
}
