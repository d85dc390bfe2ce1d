import { sql } from 'kysely';
import type { Executor } from '../../platform/db/executor.js';

/**
 * The triggers that keep the statistics' tables: stat_holder (migration 0021), the card attributes
 * of the check roll-up (0022) and the check days' revocations (0023: it fires on revocations only, not
 * on the rows a load inserts). A bulk load that runs without triggers (the demo generator's fast load)
 * may skip exactly these, and must then call rebuildStatHolders and fold its checks (foldNextChecks
 * reads the cards' attributes as they are then; the mark's move fills the check days).
 */
export const STATISTICS_TRIGGERS = [
  'stat_holder_binding_trg',
  'stat_holder_member_trg',
  'stat_card_trg',
  'stat_check_day_revoke_trg',
] as const;

/** Recomputes every holder row from the bindings, cards and members, in the caller's transaction. */
export async function rebuildStatHolders(db: Executor): Promise<void> {
  await sql`select stat_holder_refresh_all()`.execute(db);
}
