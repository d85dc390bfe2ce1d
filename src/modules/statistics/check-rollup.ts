import type { Db } from '../../platform/db/database.js';
import { inTransaction } from '../../platform/db/transaction.js';
import type { BackgroundJob } from '../../platform/jobs.js';
import * as repo from './check-rollup.repository.js';

/**
 * The check roll-up (docs/adr/0069-check-roll-up-exact-behind-a-fold-mark.md; migration 0020). stat_check_rollup holds
 * the entries and checks of the living checks with id ≤ stat_check_fold.folded_to (the mark), per card
 * × card model × resource; a statistic reads it plus the living checks beyond the mark in one
 * statement, so its answer is exact whatever the job has folded.
 *
 * - The mark only passes checks whose transaction has ended: the job first holds card_check in SHARE
 *   mode for an instant (it waits for the check-ins in flight, which hold ROW EXCLUSIVE from before
 *   they draw their id until they commit) and reads max(id) there. A check drawn later has a greater id.
 * - Folding and revoking are serialised on the mark's row: the fold holds it FOR UPDATE, a revocation
 *   FOR SHARE. A revocation that finds its check at or below the mark takes it out of the roll-up; one
 *   that finds it beyond leaves it to the fold, which (having waited for the revocation) sees it revoked.
 * - Several instances fold one after the other on the same row lock; each check is folded once.
 *
 * The check-in itself writes nothing here: its statement is unchanged.
 */

/** How often each instance folds; the statistics read at most this much of live checks beyond the mark. */
export const FOLD_EVERY_MS = 30_000;
/** Checks per fold transaction: keeps each short (PGlite runs one transaction at a time). */
export const FOLD_CHUNK = 100_000;
/** How long the job waits for check-ins in flight before giving up this round (a check-in waits at most as long). */
const SETTLE_LOCK_TIMEOUT = '200ms';

/**
 * The greatest check id whose transaction has ended (every lesser id too), or null when check-ins kept
 * card_check busy beyond the timeout (the next round tries again).
 */
export async function settledCheckId(db: Db): Promise<number | null> {
  try {
    return await inTransaction(db, (trx) => repo.maxCheckIdOnceSettled(trx, SETTLE_LOCK_TIMEOUT));
  } catch (err) {
    if ((err as { code?: string }).code === '55P03') return null; // lock_not_available
    throw err;
  }
}

/** One round of the job: folds every settled check beyond the mark, in short transactions. Returns the roll-up rows written. */
export async function foldCheckRollup(db: Db): Promise<number> {
  const upTo = await settledCheckId(db);
  if (upTo == null) return 0;
  let total = 0;
  for (;;) {
    const r = await inTransaction(db, (trx) => repo.foldNextChecks(trx, upTo, FOLD_CHUNK));
    total += r.folded;
    if (r.done) return total;
  }
}

export function checkRollupJob(db: Db): BackgroundJob {
  return {
    name: 'fold checks into the statistics roll-up',
    everyMs: FOLD_EVERY_MS,
    run: async () => void (await foldCheckRollup(db)),
  };
}
