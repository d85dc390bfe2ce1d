import type { Transaction } from 'kysely';
import type { DB } from '../../db/types.js';
import { ensureMonthlyPartitions, partitionName } from '../../platform/db/partitions.js';
import { columnTypes, isPartitioned, truncateForLoad } from './demo.repository.js';
import type { TableRows } from './rows.js';
import type { BinaryTarget } from './writer.js';

/**
 * Gets card_check ready for the check-in stream (ADR 0103). When it is partitioned by month
 * (migration 0032), every month of the generated span gets its partition first, in this transaction,
 * or every row would land in the default partition. For the fast load into PostgreSQL it also says
 * where binary COPY goes: straight into each month's partition (no tuple routing), with FREEZE,
 * after emptying the table in this transaction so its files are new. Returns no target when the
 * table's columns are not the types the binary rows were encoded for (the rows then go in as text).
 */
export async function prepareCheckLoad(
  exec: Transaction<DB>,
  checks: TableRows,
  span: { first: Date; now: Date },
  bulk: boolean,
): Promise<BinaryTarget | undefined> {
  const partitioned = await isPartitioned(exec, checks.table);
  if (partitioned)
    await ensureMonthlyPartitions(exec, {
      table: checks.table,
      column: 'check_time',
      monthsAhead: 0,
      from: span.first,
      now: span.now,
    });
  if (!bulk || !checks.binary) return undefined;
  const types = await columnTypes(exec, checks.table, checks.columns);
  if (types.some((t, k) => t !== checks.binary!.types[k])) return undefined;
  await truncateForLoad(exec, checks.table);
  const table = checks.table;
  return { tableOf: partitioned ? (month) => partitionName(table, month) : () => table, freeze: true };
}
