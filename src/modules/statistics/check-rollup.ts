import { sql } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import type { Executor } from '../../platform/db/executor.js';
import { inTransaction } from '../../platform/db/transaction.js';
import type { BackgroundJob } from '../../platform/jobs.js';

/**
 * The check roll-up (docs/decisions.md, Statistics: roll-up; migration 0020). stat_check_rollup holds
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
    return await inTransaction(db, async (trx) => {
      await sql.raw(`set local lock_timeout = '${SETTLE_LOCK_TIMEOUT}'`).execute(trx);
      await sql`lock table card_check in share mode`.execute(trx);
      const { rows } = await sql<{ id: string | number | null }>`select max(id) as id from card_check`.execute(trx);
      return Number(rows[0]?.id ?? 0);
    });
  } catch (err) {
    if ((err as { code?: string }).code === '55P03') return null; // lock_not_available
    throw err;
  }
}

/**
 * Folds the next checks beyond the mark, up to `upTo` (at most FOLD_CHUNK of them), into the roll-up
 * and moves the mark, in the caller's transaction. `upTo` must be settled (settledCheckId). Returns
 * how many roll-up rows were written and whether the mark reached `upTo`. A null chunk folds all at once
 * (the demo generator, in its own transaction).
 */
export async function foldNextChecks(trx: Executor, upTo: number, chunk: number | null = FOLD_CHUNK): Promise<{ folded: number; done: boolean }> {
  const { rows: [mark] } = await sql<{ folded_to: string | number }>`select folded_to from stat_check_fold where id = 1 for update`.execute(trx);
  const from = Number(mark.folded_to);
  if (from >= upTo) return { folded: 0, done: true };
  let to = upTo;
  if (chunk != null) {
    const { rows: [end] } = await sql<{ id: string | number | null }>`
      select id from card_check where id > ${from} and id <= ${upTo} order by id offset ${chunk - 1} limit 1`.execute(trx);
    if (end?.id != null) to = Number(end.id);
  }
  const folded = await sql`
    insert into stat_check_rollup as r (card_model_id, card_id, resource_id, entries, checks)
    select card_model_id, card_id, resource_id, sum(consume_num), count(*)
    from card_check
    where id > ${from} and id <= ${to} and not is_deleted
    group by card_model_id, card_id, resource_id
    on conflict (card_model_id, card_id, resource_id)
    do update set entries = r.entries + excluded.entries, checks = r.checks + excluded.checks`.execute(trx);
  await sql`update stat_check_fold set folded_to = ${to}, folded_at = now() where id = 1`.execute(trx);
  return { folded: Number(folded.numAffectedRows ?? 0), done: to >= upTo };
}

/** One round of the job: folds every settled check beyond the mark, in short transactions. Returns the roll-up rows written. */
export async function foldCheckRollup(db: Db): Promise<number> {
  const upTo = await settledCheckId(db);
  if (upTo == null) return 0;
  let total = 0;
  for (;;) {
    const r = await inTransaction(db, (trx) => foldNextChecks(trx, upTo));
    total += r.folded;
    if (r.done) return total;
  }
}

export function checkRollupJob(db: Db): BackgroundJob {
  return { name: 'fold checks into the statistics roll-up', everyMs: FOLD_EVERY_MS, run: async () => void (await foldCheckRollup(db)) };
}

export interface RevokedCheckKey {
  id: number;
  cardId: number;
  cardModelId: number;
  resourceId: number;
  consumeNum: number;
}

/**
 * In the transaction that revokes a check: when the check is at or below the mark (already folded),
 * takes it out of the roll-up. The mark is read FOR SHARE, so a fold in progress is waited for and its
 * new mark is the one compared.
 */
export async function unfoldRevokedCheck(trx: Executor, c: RevokedCheckKey): Promise<void> {
  await sql`
    with mark as (select folded_to from stat_check_fold where id = 1 for share)
    update stat_check_rollup r
    set entries = r.entries - ${c.consumeNum}, checks = r.checks - 1
    from mark
    where ${c.id} <= mark.folded_to
      and r.card_model_id = ${c.cardModelId} and r.card_id = ${c.cardId} and r.resource_id = ${c.resourceId}`.execute(trx);
}
