import { sql } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import { inTransaction, type Trx } from '../../platform/db/transaction.js';

/**
 * Memory and strategy for one statistic's grouping (docs/adr/0072-statistics-groupings-hashed-in-memory.md), set for the
 * statement's transaction only (set_config(…, true) is SET LOCAL; one round trip).
 *
 * - 'hashed': the planner sizes a hash aggregate by its estimate of the groups; grouping cards by
 *   activation day it expects one group per card (activation times are nearly unique: 616k expected
 *   for 8k real groups on a year of the 10M set), and then sorts every card on disk instead of hashing
 *   the few thousand real groups, even with more work_mem (3.6 s against 1.4 s hashed, measured on that
 *   set). Sorting is priced out: a hash aggregate that does outgrow its memory spills to disk by itself
 *   (PostgreSQL 13+), and a sort the plan cannot avoid (ORDER BY … LIMIT) still runs.
 * - 'ordered': hundreds of thousands of real groups read from an index in their order (profit's
 *   distinct documents: stat_holder_document_idx) are counted as they stream by; the planner would
 *   rather hash them all (4× slower on the 10M set). Hashing is priced out.
 *
 * JIT is off for the statement too: pricing a strategy out adds 10^10 to the cost of any plan that
 * still uses it (the page's ORDER BY … LIMIT sorts), far past jit_above_cost, so PostgreSQL compiled
 * and optimised every such statement with LLVM: 1.0–1.6 s of a 1.9 s statCardModel page on the 300k
 * demo set, against 0.19 s without (docs/adr/0072-statistics-groupings-hashed-in-memory.md).
 */
const AGGREGATE_WORK_MEM = '64MB';

export function withAggregateMemory<T>(
  db: Db,
  work: (trx: Trx) => Promise<T>,
  grouping: 'hashed' | 'ordered' = 'hashed',
): Promise<T> {
  const off = grouping === 'hashed' ? 'enable_sort' : 'enable_hashagg';
  return inTransaction(db, async (trx) => {
    await sql`select set_config('work_mem', ${AGGREGATE_WORK_MEM}, true), set_config(${off}, 'off', true), set_config('jit', 'off', true)`.execute(
      trx,
    );
    return work(trx);
  });
}
