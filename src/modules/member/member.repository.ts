import { sql } from 'kysely';
import type { Executor } from '../../platform/db/executor.js';
import type { Account } from '../../platform/http/context.js';

export interface MemberLogin {
  id: number;
  openId: string;
  mobile: string | null;
  name: string;
}

export interface MpLoginStamp {
  openId: string;
  unionId: string | null;
  ip: string;
  /** register_terminal of a new member: 1 app, 2 mini program */
  terminal: number;
  nickname: string | null;
  avatar: string | null;
  at: Date;
}

const displayName = (r: {
  nickname: string | null;
  name: string | null;
  mobile: string | null;
  open_id: string | null;
  id: number;
}) => r.nickname ?? r.name ?? r.mobile ?? r.open_id ?? `member ${r.id}`;

/**
 * Creates the member of an open id on its first login, or stamps the login of an active one, in one
 * statement: two concurrent first logins meet on the unique open_id and the second becomes the
 * update. Null when the open id belongs to a disabled or deleted member, which is left untouched.
 */
export async function upsertOnLogin(db: Executor, s: MpLoginStamp): Promise<MemberLogin | null> {
  const ip = s.ip.slice(0, 64);
  const r = await db
    .insertInto('member')
    .values({
      open_id: s.openId,
      third_id: s.unionId,
      status: 1,
      register_ip: ip,
      register_terminal: s.terminal,
      login_ip: ip,
      login_date: s.at,
      nickname: s.nickname,
      avatar: s.avatar,
    })
    .onConflict((oc) =>
      oc
        .column('open_id')
        .doUpdateSet({
          login_ip: (eb) => eb.ref('excluded.login_ip'),
          login_date: (eb) => eb.ref('excluded.login_date'),
          // What the user shares now replaces what was kept; a login that shares nothing keeps it.
          nickname: sql<string | null>`coalesce(excluded.nickname, member.nickname)`,
          avatar: sql<string | null>`coalesce(excluded.avatar, member.avatar)`,
          third_id: sql<string | null>`coalesce(member.third_id, excluded.third_id)`,
        })
        .where('member.status', '=', 1)
        .where('member.is_deleted', '=', false),
    )
    .returning(['id', 'open_id', 'mobile', 'nickname', 'name'])
    .executeTakeFirst();
  return r ? { id: r.id, openId: r.open_id ?? s.openId, mobile: r.mobile, name: displayName(r) } : null;
}

export async function findMemberIdByOpenId(db: Executor, openId: string): Promise<number | null> {
  const r = await db.selectFrom('member').select('id').where('open_id', '=', openId).executeTakeFirst();
  return r?.id ?? null;
}

/** The session account of a member; null when it is gone or disabled, which ends its sessions. */
export async function loadMemberAccount(db: Executor, id: number): Promise<Account | null> {
  const r = await db
    .selectFrom('member')
    .select(['id', 'open_id', 'mobile', 'nickname', 'name', 'status'])
    .where('id', '=', id)
    .where('is_deleted', '=', false)
    .executeTakeFirst();
  if (!r || r.status !== 1) return null;
  return {
    id: r.id,
    kind: 'member',
    name: displayName(r),
    userType: null,
    merchantId: null,
    shopId: null,
    permissions: [],
  };
}

export function memberAccount(m: MemberLogin): Account {
  return { id: m.id, kind: 'member', name: m.name, userType: null, merchantId: null, shopId: null, permissions: [] };
}
