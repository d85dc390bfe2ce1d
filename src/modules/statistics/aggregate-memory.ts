import { sql } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import { inTransaction, type Trx } from '../../platform/db/transaction.js';

/**
 * Memory and strategy for one statistic's grouping (docs/decisions.md, Statistics: roll-up). The
 * planner sizes a hash aggregate by its estimate of the groups; grouping cards by activation day it
 * expects one group per card (activation times are nearly unique: 616k expected for 8k real groups on
 * a year of the 10M set), and then sorts every card on disk instead of hashing the few thousand real
 * groups, even with more work_mem (3.6 s against 1.4 s hashed, measured on that set). Sorting is
 * therefore priced out for the statement: a hash aggregate that does outgrow its memory spills to disk
 * by itself (PostgreSQL 13+), and a sort the plan cannot avoid (ORDER BY … LIMIT) still runs.
 * SET LOCAL lasts until the statement's transaction ends, so no other query on the connection gets it.
 */
const AGGREGATE_WORK_MEM = '64MB';

export function withAggregateMemory<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  return inTransaction(db, async (trx) => {
    // set_config(…, true) is SET LOCAL; both in one round trip.
    await sql`select set_config('work_mem', ${AGGREGATE_WORK_MEM}, true), set_config('enable_sort', 'off', true)`.execute(trx);
    return work(trx);
  });
}
