import { sql } from 'kysely';
import type { Executor } from '../../platform/db/executor.js';

/** The roll-up's SQL (check-rollup.ts says how the mark keeps the statistics exact). */

/** The mark, for a statistic's read of the live checks beyond it (0 before the first fold). */
export const foldMark = sql<number>`coalesce((select folded_to from stat_check_fold where id = 1), 0)`;

/**
 * In the caller's transaction: waits (at most `lockTimeout`) for the check-ins in flight by holding
 * card_check in SHARE mode, then reads max(id), below which no check can still be uncommitted.
 */
export async function maxCheckIdOnceSettled(trx: Executor, lockTimeout: string): Promise<number> {
  await sql.raw(`set local lock_timeout = '${lockTimeout}'`).execute(trx);
  await sql`lock table card_check in share mode`.execute(trx);
  const { rows } = await sql<{ id: string | number | null }>`select max(id) as id from card_check`.execute(trx);
  return Number(rows[0]?.id ?? 0);
}

/**
 * Folds the next checks beyond the mark, up to `upTo` (at most `chunk` of them), into the roll-up
 * and moves the mark, in the caller's transaction. `upTo` must be settled (settledCheckId). Returns
 * how many roll-up rows were written and whether the mark reached `upTo`. A null chunk folds all at once
 * (the demo generator, in its own transaction). Moving the mark also fills stat_check_day (its
 * trigger, migration 0023).
 */
export async function foldNextChecks(
  trx: Executor,
  upTo: number,
  chunk: number | null,
): Promise<{ folded: number; done: boolean }> {
  const {
    rows: [mark],
  } = await sql<{ folded_to: string | number }>`select folded_to from stat_check_fold where id = 1 for update`.execute(
    trx,
  );
  const from = Number(mark.folded_to);
  if (from >= upTo) return { folded: 0, done: true };
  let to = upTo;
  if (chunk != null) {
    const {
      rows: [end],
    } = await sql<{ id: string | number | null }>`
      select id from card_check where id > ${from} and id <= ${upTo} order by id offset ${chunk - 1} limit 1`.execute(
      trx,
    );
    if (end?.id != null) to = Number(end.id);
  }
  // The checks' sums per card × resource, per card and per resource × activation day, with the card's
  // attributes as they are now
  // (a change after this is the card trigger's, which waits for this transaction's mark lock).
  const folded = await sql`
    with folding as materialized (
      select k.card_model_id, k.card_id, k.resource_id, sum(k.consume_num) as entries, count(*) as checks,
        c.active_time, c.merchant_id, c.shop_id, (not c.is_deleted and c.card_model_id = k.card_model_id) as counted
      from card_check k join card c on c.id = k.card_id
      where k.id > ${from} and k.id <= ${to} and not k.is_deleted
      group by k.card_model_id, k.card_id, k.resource_id, c.id
    ),
    per_card as (
      insert into stat_card_use as u (card_id, card_model_id, entries, active_time, merchant_id, shop_id, counted)
      select card_id, card_model_id, sum(entries), min(active_time), min(merchant_id), min(shop_id), bool_and(counted)
      from folding group by card_id, card_model_id
      on conflict (card_id, card_model_id)
      do update set entries = u.entries + excluded.entries, active_time = excluded.active_time, merchant_id = excluded.merchant_id,
        shop_id = excluded.shop_id, counted = excluded.counted
    ),
    per_day as (
      insert into stat_resource_day as d (card_model_id, resource_id, merchant_id, shop_id, active_day, entries)
      select card_model_id, resource_id, coalesce(merchant_id, 0), coalesce(shop_id, 0), stat_utc_day(active_time), sum(entries)
      from folding where counted and active_time is not null
      group by 1, 2, 3, 4, 5
      on conflict (active_day, card_model_id, resource_id, merchant_id, shop_id) do update set entries = d.entries + excluded.entries
    )
    insert into stat_check_rollup as r (card_model_id, card_id, resource_id, entries, checks, active_time, merchant_id, shop_id, counted)
    select card_model_id, card_id, resource_id, entries, checks, active_time, merchant_id, shop_id, counted from folding
    on conflict (card_model_id, card_id, resource_id)
    do update set entries = r.entries + excluded.entries, checks = r.checks + excluded.checks, active_time = excluded.active_time,
      merchant_id = excluded.merchant_id, shop_id = excluded.shop_id, counted = excluded.counted`.execute(trx);
  await sql`update stat_check_fold set folded_to = ${to}, folded_at = now() where id = 1`.execute(trx);
  return { folded: Number(folded.numAffectedRows ?? 0), done: to >= upTo };
}

/**
 * Moves the mark over checks `from`…`to` whose roll-up rows the caller wrote itself (the demo
 * generator's fast load, db/seed/demo/rollup.ts), in the caller's transaction; its trigger fills
 * stat_check_day. Refuses when the mark is not below `from`: those checks would count twice.
 */
export async function markFoldedByCaller(trx: Executor, from: number, to: number): Promise<void> {
  const r =
    await sql`update stat_check_fold set folded_to = ${to}, folded_at = now() where id = 1 and folded_to < ${from}`.execute(
      trx,
    );
  if (Number(r.numAffectedRows ?? 0) !== 1) throw new Error(`the roll-up's mark is not below check ${from}`);
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
 * takes it out of the roll-up, its card's sum and its day entries (its check day: the revocation's
 * trigger, migration 0023). The mark is read FOR SHARE, so a fold in progress is waited for and its
 * new mark is the one compared.
 */
export async function unfoldRevokedCheck(trx: Executor, c: RevokedCheckKey): Promise<void> {
  await sql`
    with mark as (select folded_to from stat_check_fold where id = 1 for share),
    per_card as (
      update stat_card_use u set entries = u.entries - ${c.consumeNum}
      from mark
      where ${c.id} <= mark.folded_to and u.card_id = ${c.cardId} and u.card_model_id = ${c.cardModelId}
    ),
    folded as (
      update stat_check_rollup r
      set entries = r.entries - ${c.consumeNum}, checks = r.checks - 1
      from mark
      where ${c.id} <= mark.folded_to
        and r.card_model_id = ${c.cardModelId} and r.card_id = ${c.cardId} and r.resource_id = ${c.resourceId}
      returning r.card_model_id, r.resource_id, r.merchant_id, r.shop_id, r.active_time, r.counted
    )
    update stat_resource_day d set entries = d.entries - ${c.consumeNum}
    from folded f
    where f.counted and f.active_time is not null
      and d.active_day = stat_utc_day(f.active_time) and d.card_model_id = f.card_model_id
      and d.resource_id = f.resource_id and d.merchant_id = coalesce(f.merchant_id, 0) and d.shop_id = coalesce(f.shop_id, 0)`.execute(
    trx,
  );
}
