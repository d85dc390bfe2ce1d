import type { Db } from '../../platform/db/database.js';
import { inTransaction } from '../../platform/db/transaction.js';
import type { BackgroundJob } from '../../platform/jobs.js';
import { expireDueCards } from './card.repository.js';

/** Cards per transaction: keeps each one short (PGlite runs one transaction at a time). */
const EXPIRE_BATCH = 2000;
export const EXPIRE_EVERY_MS = 10 * 60 * 1000;

/**
 * Stores status 4 (expired) on every card whose expiry has passed, in short transactions, until none
 * is left. Every instance runs it; rows another instance is marking are skipped (FOR UPDATE SKIP
 * LOCKED) and the update is idempotent, so several instances at once neither block nor double-count.
 * Reads do not wait for it: a card past its expiry already reads as expired.
 */
export async function expireCards(db: Db, now = new Date()): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await inTransaction(db, (trx) => expireDueCards(trx, now, EXPIRE_BATCH));
    total += n;
    if (n < EXPIRE_BATCH) return total;
  }
}

export function cardExpiryJob(db: Db): BackgroundJob {
  return { name: 'expire cards', everyMs: EXPIRE_EVERY_MS, run: async () => void (await expireCards(db)) };
}
