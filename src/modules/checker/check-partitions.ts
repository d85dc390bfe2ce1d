import type { Db } from '../../platform/db/database.js';
import { logRetentionJob, partitionsAheadJob, type PartitionedTable } from '../../platform/db/partition-jobs.js';
import type { BackgroundJob } from '../../platform/jobs.js';
import { deleteFailNoncesBefore } from './check-fail.repository.js';

/** This module's tables partitioned by month (migration 0032, docs/adr/0100-history-tables-partitioned-by-month.md). */
const CHECKS: PartitionedTable = { table: 'card_check', column: 'check_time' };
const FAILS: PartitionedTable = { table: 'card_check_fail', column: 'created_at' };

/**
 * Partitions made ahead for the check records and the failed-scan log; a retention, when set, drops
 * the failed-scan log's expired months and their nonces (a refusal older than that is judged anew
 * when re-sent). Check records are never dropped, nor their nonces.
 */
export function checkPartitionJobs(
  db: Db,
  settings: { partitionMonthsAhead: number; logRetentionMonths: number },
): BackgroundJob[] {
  const retention = logRetentionJob(db, FAILS, settings.logRetentionMonths, async (cutoff) => {
    await deleteFailNoncesBefore(db, cutoff);
  });
  return [partitionsAheadJob(db, [CHECKS, FAILS], settings.partitionMonthsAhead), ...(retention ? [retention] : [])];
}
