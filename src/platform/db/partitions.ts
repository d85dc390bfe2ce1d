import { sql } from 'kysely';
import type { Db } from './database.js';
import { advisoryLock, inTransaction, type Trx } from './transaction.js';

/**
 * Monthly range partitions of the history tables (docs/adr/0100-history-tables-partitioned-by-month.md;
 * migration 0032 made the first ones). A month's partition is `<table>_pYYYYMM` and holds the UTC
 * month [YYYY-MM-01, next month's 1st); `<table>_default` takes any row of a month without one, so a
 * write never fails for want of a partition.
 *
 * Creation is idempotent and safe on several instances at once (an advisory lock per table, and a
 * re-read under it). A month is made as a table of its own, filled with that month's rows moved out
 * of the default partition, then attached: attaching locks the parent only in SHARE UPDATE EXCLUSIVE
 * mode (reads and writes go on) and the default partition, which it scans, in ACCESS EXCLUSIVE mode,
 * taken here first so no row of the month can slip into it between the move and the attach.
 */

export interface MonthlyPartitions {
  table: string;
  /** the partition column (timestamptz) */
  column: string;
  /** months after the current one that must have their partition */
  monthsAhead: number;
  /** also make every month from this one's on (the demo generator before it bulk-loads) */
  from?: Date;
  /** the current time (tests) */
  now?: Date;
}

/** How long partition DDL waits for a lock before giving up until its next run, when it owns the transaction. */
const LOCK_TIMEOUT = '5s';

const NAME = /^[a-z_][a-z0-9_]*$/;

function checkedName(name: string): string {
  if (!NAME.test(name)) throw new Error(`not a plain identifier: ${name}`);
  return name;
}

/** YYYYMM of the UTC month `offset` months after `at`'s. */
function monthKey(at: Date, offset = 0): string {
  const d = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + offset, 1));
  return `${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

function monthStart(key: string, offset = 0): Date {
  return new Date(Date.UTC(Number(key.slice(0, 4)), Number(key.slice(4)) - 1 + offset, 1));
}

/** The month keys from `first` through `last`, in order. */
function monthsBetween(first: string, last: string): string[] {
  const keys: string[] = [];
  for (let k = first; k <= last; k = monthKey(monthStart(k, 1))) keys.push(k);
  return keys;
}

export const partitionName = (table: string, month: string): string => `${table}_p${month}`;
export const defaultPartitionName = (table: string): string => `${table}_default`;

/** The names of the table's partitions. */
async function partitionsOf(db: Db | Trx, table: string): Promise<Set<string>> {
  const r = await sql<{ name: string }>`
    select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = ${table}::regclass`.execute(db);
  return new Set(r.rows.map((row) => row.name));
}

/** The month keys of the table's month partitions, oldest first. */
export async function monthPartitions(db: Db | Trx, table: string): Promise<string[]> {
  const pattern = new RegExp(`^${checkedName(table)}_p(\\d{6})$`);
  return [...(await partitionsOf(db, table))]
    .map((name) => pattern.exec(name)?.[1])
    .filter((m): m is string => m !== undefined)
    .sort();
}

/** Runs `work` in the caller's transaction, or in one of its own with a lock timeout. */
async function locked<T>(db: Db | Trx, table: string, work: (trx: Trx) => Promise<T>): Promise<T> {
  if (db.isTransaction) {
    await advisoryLock(db as Trx, 'partitions', table);
    return work(db as Trx);
  }
  return inTransaction(db as Db, async (trx) => {
    await advisoryLock(trx, 'partitions', table);
    await sql.raw(`set local lock_timeout = '${LOCK_TIMEOUT}'`).execute(trx);
    return work(trx);
  });
}

/** Makes one month's partition from the default partition's rows of that month. */
async function createMonth(trx: Trx, table: string, column: string, month: string, hasDefault: boolean) {
  const parent = sql.table(table);
  const part = sql.table(partitionName(table, month));
  const col = sql.ref(column);
  const from = monthStart(month);
  const to = monthStart(month, 1);
  const bound = (d: Date) => sql.lit(d.toISOString());
  await sql`lock table ${parent} in share update exclusive mode`.execute(trx);
  if (hasDefault) await sql`lock table ${sql.table(defaultPartitionName(table))} in access exclusive mode`.execute(trx);
  await sql`create table ${part} (like ${parent} including defaults including constraints)`.execute(trx);
  if (hasDefault) {
    await sql`with moved as (
        delete from ${sql.table(defaultPartitionName(table))} where ${col} >= ${from} and ${col} < ${to} returning *
      ) insert into ${part} select * from moved`.execute(trx);
  }
  await sql`alter table ${parent} attach partition ${part} for values from (${bound(from)}) to (${bound(to)})`.execute(
    trx,
  );
}

/**
 * Makes every missing month partition of the table from `from`'s month (default: the current one)
 * through `monthsAhead` months after the current one; returns the names made. Rows of those months
 * waiting in the default partition move into them.
 */
export async function ensureMonthlyPartitions(db: Db | Trx, p: MonthlyPartitions): Promise<string[]> {
  const table = checkedName(p.table);
  const column = checkedName(p.column);
  const now = p.now ?? new Date();
  const first = monthKey(p.from && p.from < now ? p.from : now);
  const wanted = monthsBetween(first, monthKey(now, p.monthsAhead));
  const missing = (have: Set<string>) => wanted.filter((m) => !have.has(partitionName(table, m)));
  // The usual run finds them all: one catalog read, no lock.
  if (missing(await partitionsOf(db, table)).length === 0) return [];
  return locked(db, table, async (trx) => {
    const have = await partitionsOf(trx, table);
    const hasDefault = have.has(defaultPartitionName(table));
    const made: string[] = [];
    for (const month of missing(have)) {
      await createMonth(trx, table, column, month, hasDefault);
      made.push(partitionName(table, month));
    }
    return made;
  });
}

/**
 * Retention: drops the month partitions that end at or before `cutoff` and deletes the default
 * partition's rows older than it; returns the names dropped. Dropping a partition locks the parent
 * in ACCESS EXCLUSIVE mode for an instant.
 */
export async function dropPartitionsBefore(
  db: Db | Trx,
  table: string,
  column: string,
  cutoff: Date,
): Promise<string[]> {
  checkedName(table);
  const col = sql.ref(checkedName(column));
  const expired = (months: string[]) => months.filter((m) => monthStart(m, 1) <= cutoff);
  const have = await partitionsOf(db, table);
  const hasDefault = have.has(defaultPartitionName(table));
  if (expired(await monthPartitions(db, table)).length === 0 && !hasDefault) return [];
  return locked(db, table, async (trx) => {
    const dropped: string[] = [];
    for (const month of expired(await monthPartitions(trx, table))) {
      await sql`drop table ${sql.table(partitionName(table, month))}`.execute(trx);
      dropped.push(partitionName(table, month));
    }
    if (hasDefault)
      await sql`delete from ${sql.table(defaultPartitionName(table))} where ${col} < ${cutoff}`.execute(trx);
    return dropped;
  });
}

/** The first instant kept by a retention of `months` whole months before the current one (UTC). */
export function retentionCutoff(months: number, now = new Date()): Date {
  return monthStart(monthKey(now), -months);
}
