import { sql } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import { inTransaction, type Trx } from '../../platform/db/transaction.js';

/**
 * Memory for one statistic's grouping (docs/decisions.md, Statistics: roll-up). The planner sizes a
 * hash aggregate by its estimate of the groups; grouping cards by activation day it expects one group
 * per card (activation times are nearly unique), which at the default work_mem (4MB) makes it sort
 * every card on disk instead of hashing the few thousand real groups. SET LOCAL lasts until the
 * statement's transaction ends, so no other query on the connection gets it.
 */
const AGGREGATE_WORK_MEM = '64MB';

export function withAggregateMemory<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  return inTransaction(db, async (trx) => {
    await sql.raw(`set local work_mem = '${AGGREGATE_WORK_MEM}'`).execute(trx);
    return work(trx);
  });
}
