import { sql } from 'kysely';
import type { Scope } from '../../platform/auth/permissions.js';
import { batchedRead } from '../../platform/db/batched-read.js';
import type { Executor } from '../../platform/db/executor.js';
import { compiledOnce, preparedAs } from '../../platform/db/prepared.js';
import { scopeCondition } from '../../platform/db/scope.js';
import { formatDateTime } from '../../platform/time.js';
import { MEMBER_COLUMNS, toPageRow, type MemberRow } from '../member/index.js';
import type { MemberAdmin } from './member-admin.schemas.js';

/** At most this many cards come with a member (newest binding first). */
const CARDS_SHOWN = 500;

/** A card's columns of a row; all null on the one row of a member without cards in the scope. */
type CardColumns = {
  card_id: number;
  card_number: string;
  card_model_id: number;
  card_model_name: string;
  card_status: number;
  expire_time: Date | null;
  bound_at: Date;
};
type CardRow = CardColumns | { [K in keyof CardColumns]: null };

/**
 * The members asked for and the cards bound to each, in one statement: each row is a member with one
 * card (or none, for a member without cards in the scope). One round trip instead of two per member:
 * on PostgreSQL each is a wake-up of another process, which costs this read more than its work
 * (docs/adr/0075-database-reads-one-round-trip-each.md). A variant per kind of scope, so each text is prepared once per connection.
 */
function membersWithCards(scopeKind: Scope['kind']) {
  return compiledOnce(['ids', 'merchantId', 'shopId'], (p) => {
    // The shared scope condition, its ids the statement's stand-ins.
    const merchantId = p.merchantId as number;
    const scope: Scope =
      scopeKind === 'platform'
        ? { kind: 'platform' }
        : scopeKind === 'merchant'
          ? { kind: 'merchant', merchantId }
          : { kind: 'shop', merchantId, shopId: p.shopId as number };
    return sql<MemberRow & CardRow>`${preparedAs(`member-cards-${scopeKind}`)}
      select ${sql.join(MEMBER_COLUMNS.map((c) => sql.ref(`m.${c}`)))},
        x.card_id, x.card_number, x.card_model_id, x.card_model_name, x.card_status, x.expire_time, x.bound_at
      from member m
      left join lateral (
        select b.id as binding_id, c.id as card_id, c.card_number, c.card_model_id, cm.name as card_model_name,
          c.status as card_status, c.expire_time, b.bound_at
        from card_binding b
        join card c on c.id = b.card_id
        join card_model cm on cm.id = c.card_model_id
        where b.member_id = m.id and not b.is_deleted and not c.is_deleted
          and ${scopeCondition(scope, 'c.merchant_id', 'c.shop_id')}
        order by b.bound_at desc, b.id desc
        limit ${sql.lit(CARDS_SHOWN)}
      ) x on true
      where m.id = any(${p.ids}::bigint[]) and not m.is_deleted
      order by m.id, x.bound_at desc, x.binding_id desc`;
  });
}

const statements = {
  platform: membersWithCards('platform'),
  merchant: membersWithCards('merchant'),
  shop: membersWithCards('shop'),
};

/** getMember's reads of one scope, made by requests at the same time, share one statement. */
const memberRows = batchedRead<number, Array<MemberRow & CardRow>, Scope>(
  async (db, ids, scope) => {
    const merchantId = scope.kind === 'platform' ? null : scope.merchantId;
    const shopId = scope.kind === 'shop' ? scope.shopId : null;
    const byMember = new Map<number, Array<MemberRow & CardRow>>();
    for (const r of (await statements[scope.kind](db, { ids, merchantId, shopId })).rows) {
      const rows = byMember.get(r.id);
      if (rows) rows.push(r);
      else byMember.set(r.id, [r]);
    }
    return byMember;
  },
  (scope) => JSON.stringify(scope),
);

/**
 * A living member with the living cards bound to it, limited to those the scope sold; null when there
 * is no such member.
 */
export async function findMemberWithCards(db: Executor, id: number, scope: Scope): Promise<MemberAdmin | null> {
  const rows = await memberRows(db, id, scope);
  if (!rows) return null;
  const cards = rows
    .filter((r): r is MemberRow & CardColumns => r.card_id !== null)
    .map((r) => ({
      cardId: r.card_id,
      cardNumber: r.card_number,
      cardModelId: r.card_model_id,
      cardModelName: r.card_model_name,
      status: r.card_status,
      expireTime: formatDateTime(r.expire_time),
      boundTime: formatDateTime(r.bound_at),
    }));
  return Object.assign(toPageRow(rows[0]), { cards });
}
