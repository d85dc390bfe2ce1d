import type { Executor } from '../../platform/db/executor.js';
import { MEMBER_TALLY_TRIGGERS, rebuildMemberTally } from '../../modules/member/index.js';
import { rebuildStatHolders, STATISTICS_TRIGGERS } from '../../modules/statistics/index.js';

/**
 * The triggers a fast load (replica mode: no per-row triggers) may skip because it redoes their work
 * set-wise; `canLoadWithoutTriggers` refuses the fast path when a written table carries any other.
 * The check roll-up's are replayed by folding the checks; the others by rebuildHolderTables.
 */
export const FAST_LOAD_REPLAYED_TRIGGERS: readonly string[] = [...STATISTICS_TRIGGERS, ...MEMBER_TALLY_TRIGGERS];

/** Recomputes the tables kept by triggers on members, cards and bindings (the portrait's holders, the member tally). */
export async function rebuildHolderTables(db: Executor): Promise<void> {
  await rebuildStatHolders(db);
  await rebuildMemberTally(db);
}
