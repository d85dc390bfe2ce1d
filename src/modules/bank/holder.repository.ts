import type { Executor } from '../../platform/db/executor.js';
import { codeText } from '../../platform/http/schemas.js';
import type { Account } from '../../platform/http/context.js';
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
 * `account` is null when that member is disabled or gone.
 */
export async function findHolder(db: Executor, phone: string): Promise<{ memberId: number; account: Account | null } | null> {
  const r = await db
    .selectFrom('activation_record as a')
    .leftJoin('member as m', 'm.id', 'a.member_id')
    .select(['a.member_id', 'm.id as id', 'm.status', 'm.is_deleted', 'm.nickname', 'm.name', 'm.open_id'])
    .where('a.user_phone', '=', phone)
    .where('a.member_id', 'is not', null)
    .orderBy('a.id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!r) return null;
  const memberId = r.member_id!;
  if (r.id === null || r.status !== 1 || r.is_deleted) return { memberId, account: null };
  const name = r.nickname ?? r.name ?? phone;
  return { memberId, account: { id: r.id, kind: 'member', name, userType: null, merchantId: null, shopId: null, permissions: [] } };
}

/** The cards bound to the phone (the card binding of spec B 4.4 rule 4), newest first; ID numbers masked. */
export async function listHolderCards(db: Executor, phone: string): Promise<HolderCard[]> {
  const rows = await db
    .selectFrom('card_binding as b')
    .innerJoin('card as c', 'c.id', 'b.card_id')
    .innerJoin('card_model as m', 'm.id', 'c.card_model_id')
    .select(['c.card_number', 'm.name as model_name', 'c.status', 'c.active_time', 'c.expire_time', 'b.name', 'b.id_type', 'b.id_no'])
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
