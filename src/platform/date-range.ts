import { badRequest } from './errors.js';
import { formatDateTime, parseDateTime } from './time.js';

/** A closed range of instants: `end` is inclusive (a bare end date covers that whole day). */
export interface DateRange {
  start: Date;
  end: Date;
}

const DAY_MS = 86_400_000;

/** One wire date, refused with a 400 that names the field when it is not a real date. */
export function parseDateField(field: string, text: string, endOfDay = false): Date {
  const d = parseDateTime(text, endOfDay);
  if (!d) throw badRequest(`${field} is invalid: "${text}" is not a real date (YYYY-MM-DD HH:mm:ss)`);
  return d;
}

/**
 * A `Date[]` range of the wire (docs/architecture.md §5.10): two dates, start ≤ end, at most `maxDays` days
 * apart when given. Absent or empty → null (no filter). Every refusal is a 400 naming the field.
 */
export function parseDateRange(
  field: string,
  value: readonly string[] | null | undefined,
  opts: { maxDays?: number; required?: boolean } = {},
): DateRange | null {
  if (value == null || value.length === 0) {
    if (opts.required) throw badRequest(`${field} is required`);
    return null;
  }
  if (value.length !== 2) throw badRequest(`${field} is invalid: must hold a start and an end date`);
  const start = parseDateField(`${field}[0]`, value[0]);
  const end = parseDateField(`${field}[1]`, value[1], true);
  if (start.getTime() > end.getTime()) {
    throw badRequest(`${field} is invalid: the start ${formatDateTime(start)} is after the end ${formatDateTime(end)}`);
  }
  if (opts.maxDays !== undefined && end.getTime() - start.getTime() >= opts.maxDays * DAY_MS) {
    throw badRequest(`${field} is invalid: must span at most ${opts.maxDays} days`);
  }
  return { start, end };
}

/** 'YYYY-MM-DD' of a date in the service time zone (for `date` columns such as check_date). */
export function dayText(d: Date): string {
  return formatDateTime(d)!.slice(0, 10);
}
