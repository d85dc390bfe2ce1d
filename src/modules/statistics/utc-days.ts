import { sql, type Expression, type SqlBool } from 'kysely';
import type { DateRange } from '../../platform/date-range.js';

const DAY_MS = 86_400_000;
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * A time range split for the tables kept per UTC day (stat_resource_day, stat_check_day): its whole
 * UTC days, read from such a table, and the rest, at most a part of a day at either end, read from
 * rows that carry the time. Without a range every day is whole.
 */
export interface UtcDaySplit {
  /** the day column (a date) falls on a whole day of the range */
  whole(day: string): Expression<SqlBool>;
  /** the time column falls in the range but outside its whole days */
  partial(time: string): Expression<SqlBool>;
  /** the time column falls on a whole day of the range */
  inWhole(time: string): Expression<SqlBool>;
}

export function splitUtcDays(range: DateRange | null): UtcDaySplit {
  if (!range)
    return { whole: () => sql<SqlBool>`true`, partial: () => sql<SqlBool>`false`, inWhole: () => sql<SqlBool>`true` };
  const firstWhole = Math.ceil(range.start.getTime() / DAY_MS) * DAY_MS;
  // The last whole day ends at or before the range's end (inclusive, so a day ending exactly there is whole).
  const wholeEnd = Math.floor((range.end.getTime() + 1) / DAY_MS) * DAY_MS;
  if (firstWhole >= wholeEnd) {
    return {
      whole: () => sql<SqlBool>`false`,
      partial: (t) => sql<SqlBool>`${sql.ref(t)} between ${range.start} and ${range.end}`,
      inWhole: () => sql<SqlBool>`false`,
    };
  }
  const from = new Date(firstWhole);
  const to = new Date(wholeEnd);
  return {
    whole: (d) =>
      sql<SqlBool>`${sql.ref(d)} >= ${utcDay(firstWhole)}::date and ${sql.ref(d)} < ${utcDay(wholeEnd)}::date`,
    partial: (t) =>
      sql<SqlBool>`((${sql.ref(t)} >= ${range.start} and ${sql.ref(t)} < ${from}) or (${sql.ref(t)} >= ${to} and ${sql.ref(t)} <= ${range.end}))`,
    inWhole: (t) => sql<SqlBool>`${sql.ref(t)} >= ${from} and ${sql.ref(t)} < ${to}`,
  };
}
