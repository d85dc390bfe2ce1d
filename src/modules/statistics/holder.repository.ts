import { sql } from 'kysely';
import type { Executor } from '../../platform/db/executor.js';

/**
 * The triggers that keep stat_holder (migration 0021). A bulk load that runs without triggers
 * (the demo generator's fast load) may skip exactly these, and must then call rebuildStatHolders.
 */
export const STAT_HOLDER_TRIGGERS = ['stat_holder_binding_trg', 'stat_holder_card_trg', 'stat_holder_member_trg'] as const;

/** Recomputes every holder row from the bindings, cards and members, in the caller's transaction. */
export async function rebuildStatHolders(db: Executor): Promise<void> {
  await sql`select stat_holder_refresh_all()`.execute(db);
}
