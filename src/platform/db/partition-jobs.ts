import type { BackgroundJob } from '../jobs.js';
import type { Db } from './database.js';
import { dropPartitionsBefore, ensureMonthlyPartitions, retentionCutoff } from './partitions.js';

/**
 * The jobs that keep the monthly partitions of the history tables (docs/adr/0100-history-tables-partitioned-by-month.md).
 * Each table's owner declares them: a module in its `jobs`, the platform's logs in src/app.ts.
 */

const HOUR_MS = 60 * 60 * 1000;

export interface PartitionedTable {
  table: string;
  /** the partition column */
  column: string;
}

/**
 * Every hour, and once when the service starts before it serves, each table gets its partitions
 * through `monthsAhead` months after the current one, so a write at midnight on the 1st finds its month.
 */
export function partitionsAheadJob(db: Db, tables: PartitionedTable[], monthsAhead: number): BackgroundJob {
  return {
    name: `create partitions ahead: ${tables.map((t) => t.table).join(', ')}`,
    everyMs: HOUR_MS,
    atStart: true,
    run: async () => {
      for (const t of tables) await ensureMonthlyPartitions(db, { ...t, monthsAhead });
    },
  };
}

/**
 * A log's retention: every hour, the rows of whole UTC months more than `months` months before the
 * current one go (their partitions dropped); `afterDrop` then removes what is kept for those rows
 * elsewhere. null when retention is off (0 months).
 */
export function logRetentionJob(
  db: Db,
  log: PartitionedTable,
  months: number,
  afterDrop?: (cutoff: Date) => Promise<void>,
): BackgroundJob | null {
  if (months <= 0) return null;
  return {
    name: `drop ${log.table} older than ${months} months`,
    everyMs: HOUR_MS,
    run: async () => {
      const cutoff = retentionCutoff(months);
      await dropPartitionsBefore(db, log.table, log.column, cutoff);
      await afterDrop?.(cutoff);
    },
  };
}
