import type { Executor } from '../../platform/db/executor.js';
import { codeText } from '../../platform/http/schemas.js';
import { maskIdNumber } from '../../platform/id-number.js';
import { formatDateTime } from '../../platform/time.js';

/** The card holder side of the bank channel: bankUserLogin (spec B 4.4 rule 4). */

export interface HolderCard {
  cardNumber: string;
  cardModelName: string;
  status: number;
  activeTime: string | null;
  expireTime: string | null;
  userName: string | null;
  idType: string | null;
  idNo: string | null;
}

/**
 * The member the phone's latest activation made or found; null when the phone has no activation.
 * `enabled` is false when that member is disabled or gone (the session's account is loaded when
 * its token is issued).
 */
export async function findHolder(db: Executor, phone: string): Promise<{ memberId: number; enabled: boolean } | null> {
  const r = await db
    .selectFrom('activation_record as a')
    .leftJoin('member as m', 'm.id', 'a.member_id')
    .select(['a.member_id', 'm.id as id', 'm.status', 'm.is_deleted'])
    .where('a.user_phone', '=', phone)
    .where('a.member_id', 'is not', null)
    .orderBy('a.id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!r) return null;
  return { memberId: r.member_id!, enabled: r.id !== null && r.status === 1 && !r.is_deleted };
}

/** The cards bound to the phone (the card binding of spec B 4.4 rule 4), newest first; ID numbers masked. */
export async function listHolderCards(db: Executor, phone: string): Promise<HolderCard[]> {
  const rows = await db
    .selectFrom('card_binding as b')
    .innerJoin('card as c', 'c.id', 'b.card_id')
    .innerJoin('card_model as m', 'm.id', 'c.card_model_id')
    .select([
      'c.card_number',
      'm.name as model_name',
      'c.status',
      'c.active_time',
      'c.expire_time',
      'b.name',
      'b.id_type',
      'b.id_no',
    ])
    .where('b.phone', '=', phone)
    .where('b.is_deleted', '=', false)
    .where('c.is_deleted', '=', false)
    .orderBy('b.id', 'desc')
    .limit(100)
    .execute();
  return rows.map((r) => ({
    cardNumber: r.card_number,
    cardModelName: r.model_name,
    status: r.status,
    activeTime: formatDateTime(r.active_time),
    expireTime: formatDateTime(r.expire_time),
    userName: r.name,
    idType: codeText(r.id_type),
    idNo: maskIdNumber(r.id_no),
  }));
}
