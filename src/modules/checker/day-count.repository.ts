import { sql } from 'kysely';
import type { Executor } from '../../platform/db/executor.js';

/**
 * Deletes up to `limit` daily counter rows of days before `day` (YYYY-MM-DD); answers how many.
 * Rows another instance is deleting are skipped, so runs on several instances share the work.
 */
export async function deleteDayCountsBefore(db: Executor, day: string, limit: number): Promise<number> {
  const r = await sql`
    delete from card_check_day_count
    where (card_id, resource_id, check_date) in (
      select card_id, resource_id, check_date from card_check_day_count
      where check_date < ${day}::date
      limit ${limit}
      for update skip locked
    )`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}
