import { sql } from 'kysely';
import type { Executor } from '../../platform/db/executor.js';

// A member who proves a phone number takes the cards bound to it (spec B 3.x, docs/domain.md §1): the
// member module calls these in its transaction; the card and binding rows are this module's.

const CARD_UNBOUND = 1;
const CARD_BOUND = 2;

/** Gives the living card bindings made with this phone to the member; answers their card ids. */
export async function claimBindingsByPhone(db: Executor, phone: string, memberId: number): Promise<number[]> {
  const rows = await db
    .updateTable('card_binding')
    .set({ member_id: memberId, updated_by: memberId, updated_at: new Date() })
    .where('phone', '=', phone)
    .where(sql<boolean>`not is_deleted`)
    .returning('card_id')
    .execute();
  return rows.map((r) => r.card_id);
}

/** Cards now held by a member through a binding are bound: an unbound one among them becomes bound. */
export async function markCardsBound(db: Executor, cardIds: number[], by: number): Promise<number> {
  if (cardIds.length === 0) return 0;
  const r = await db
    .updateTable('card')
    .set({ status: CARD_BOUND, updated_by: by, updated_at: new Date() })
    .where('id', 'in', cardIds)
    .where('status', '=', CARD_UNBOUND)
    .where(sql<boolean>`not is_deleted`)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}
