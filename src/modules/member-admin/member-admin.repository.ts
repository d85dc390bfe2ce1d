import type { Scope } from '../../platform/auth/permissions.js';
import type { Executor } from '../../platform/db/executor.js';
import { scopeCondition } from '../../platform/db/scope.js';
import { formatDateTime } from '../../platform/time.js';
import type { MemberAdmin } from './member-admin.schemas.js';

type MemberCore = Omit<MemberAdmin, 'cards'>;

/** A living member, locked for the rest of the transaction when `forUpdate`. */
export async function findMember(db: Executor, id: number, forUpdate = false): Promise<MemberCore | null> {
  let q = db.selectFrom('member').selectAll().where('id', '=', id).where('is_deleted', '=', false);
  if (forUpdate) q = q.forUpdate();
  const r = await q.executeTakeFirst();
  if (!r) return null;
  return {
    id: r.id, openId: r.open_id, mobile: r.mobile, status: r.status, registerIp: r.register_ip, registerTerminal: r.register_terminal,
    loginIp: r.login_ip, loginDate: formatDateTime(r.login_date), nickname: r.nickname, avatar: r.avatar, name: r.name, sex: r.sex,
    areaId: r.area_id, birthday: r.birthday, mark: r.mark, point: r.point, tagIds: r.tag_ids, levelId: r.level_id, experience: r.experience,
    groupId: r.group_id, channel: r.channel, thirdId: r.third_id, password: null, isDeleted: r.is_deleted, createdTime: formatDateTime(r.created_at),
  };
}

/** The cards bound to the member (living bindings), limited to those the scope sold. */
export async function cardsOf(db: Executor, memberId: number, scope: Scope): Promise<MemberAdmin['cards']> {
  const rows = await db
    .selectFrom('card_binding as b')
    .innerJoin('card as c', 'c.id', 'b.card_id')
    .innerJoin('card_model as m', 'm.id', 'c.card_model_id')
    .select(['c.id', 'c.card_number', 'c.card_model_id', 'm.name', 'c.status', 'c.expire_time', 'b.bound_at'])
    .where('b.member_id', '=', memberId)
    .where('b.is_deleted', '=', false)
    .where(scopeCondition(scope, 'c.merchant_id', 'c.shop_id'))
    .orderBy('b.bound_at', 'desc')
    .limit(500)
    .execute();
  return rows.map((r) => ({
    cardId: r.id, cardNumber: r.card_number, cardModelId: r.card_model_id, cardModelName: r.name, status: r.status,
    expireTime: formatDateTime(r.expire_time), boundTime: formatDateTime(r.bound_at),
  }));
}

export async function setMemberStatus(db: Executor, id: number, status: number, by: number): Promise<void> {
  await db.updateTable('member').set({ status, updated_by: by, updated_at: new Date() }).where('id', '=', id).execute();
}
