import type { Db } from '../db/database.js';
import { logRetentionJob, partitionsAheadJob, type PartitionedTable } from '../db/partition-jobs.js';
import type { BackgroundJob } from '../jobs.js';

/** The platform's logs, partitioned by month (migration 0032, docs/adr/0100-history-tables-partitioned-by-month.md). */
const LOGS: PartitionedTable[] = [
  { table: 'operate_log', column: 'created_at' },
  { table: 'login_log', column: 'created_at' },
];

/** Their partitions made ahead and, when a retention is set, their expired months dropped. */
export function logPartitionJobs(
  db: Db,
  settings: { partitionMonthsAhead: number; logRetentionMonths: number },
): BackgroundJob[] {
  const retention = LOGS.map((log) => logRetentionJob(db, log, settings.logRetentionMonths));
  return [
    partitionsAheadJob(db, LOGS, settings.partitionMonthsAhead),
    ...retention.filter((j): j is BackgroundJob => j !== null),
  ];
}
