import type { Executor } from '../../platform/db/executor.js';

// The platform enables and disables members from the member-admin module; the member rows are this
// module's (docs/architecture.md §4).

/** The member's status, locking its row for the rest of the transaction; null when there is no living member. */
export async function lockMemberStatus(db: Executor, id: number): Promise<number | null> {
  const r = await db
    .selectFrom('member')
    .select('status')
    .where('id', '=', id)
    .where('is_deleted', '=', false)
    .forUpdate()
    .executeTakeFirst();
  return r?.status ?? null;
}

export async function setMemberStatus(db: Executor, id: number, status: number, by: number): Promise<void> {
  await db.updateTable('member').set({ status, updated_by: by, updated_at: new Date() }).where('id', '=', id).execute();
}
