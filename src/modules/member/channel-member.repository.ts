import { sql } from 'kysely';
import type { Trx } from '../../platform/db/transaction.js';

// A bank channel's activation enrols its customer as a member (docs/domain.md §5); the member rows are
// this module's, so the bank module calls this inside its activation transaction.

/**
 * The member with this mobile (the newest living one), created when there is none. The caller holds
 * a lock on the mobile, so two channels activating one phone at once create one member.
 */
export async function findOrCreateMemberByMobile(
  trx: Trx,
  p: { phone: string; name: string },
  channelType: number,
): Promise<number> {
  const found = await trx
    .selectFrom('member')
    .select('id')
    .where('mobile', '=', p.phone)
    .where('is_deleted', '=', false)
    .orderBy(sql`case when status = 1 then 0 else 1 end`)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (found) return found.id;
  const r = await trx
    .insertInto('member')
    .values({ mobile: p.phone, name: p.name, status: 1, channel: channelType })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}
