import { AppError, ErrorCode } from '../../platform/errors.js';
import { NAME_MAX, REMARK_MAX, type RowError } from './custom.schemas.js';

/** A checked row of a batch, ready to insert. */
export interface UserRow {
  row: number;
  name: string;
  mobile: string;
  remark: string | null;
  status: number;
}

const MOBILE = /^1[3-9]\d{9}$/;
// Control characters other than tab: the pipeline's guard refuses them in bodies too.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;

function text(
  value: unknown,
  field: string,
  max: number,
  required: boolean,
  add: (field: string, message: string) => void,
): string | null {
  if (value === undefined || value === null) {
    if (required) add(field, `${field} is required`);
    return null;
  }
  if (typeof value !== 'string') {
    add(field, `${field} is invalid: must be a string`);
    return null;
  }
  const trimmed = value.trim();
  if (required && trimmed === '') add(field, `${field} is required`);
  else if (trimmed.length > max) add(field, `${field} is invalid: must be at most ${max} characters long`);
  else if (CONTROL.test(trimmed)) add(field, `${field} is invalid: must not contain control characters`);
  else return trimmed === '' ? null : trimmed;
  return null;
}

/**
 * Checks every row (1-based numbers, as a spreadsheet shows them) and collects every problem rather
 * than stopping at the first: name (required, ≤ 64), mobile (required, a mainland mobile, once per
 * batch), remark (≤ 255), status (0 or 1, default 1). Unknown fields are ignored, as elsewhere.
 */
export function checkRows(users: readonly unknown[]): { rows: UserRow[]; errors: RowError[] } {
  const rows: UserRow[] = [];
  const errors: RowError[] = [];
  const firstRowOfMobile = new Map<string, number>();
  users.forEach((user, i) => {
    const row = i + 1;
    const add = (field: string, message: string) => errors.push({ row, field, message });
    if (typeof user !== 'object' || user === null || Array.isArray(user)) {
      add('row', 'must be an object {name, mobile, remark, status}');
      return;
    }
    const u = user as Record<string, unknown>;
    const before = errors.length;
    const name = text(u.name, 'name', NAME_MAX, true, add);
    let mobile: string | null = null;
    if (u.mobile === undefined || u.mobile === null || u.mobile === '') add('mobile', 'mobile is required');
    else if (typeof u.mobile !== 'string' || !MOBILE.test(u.mobile))
      add('mobile', 'mobile is invalid: must be an 11-digit mainland mobile number');
    else if (firstRowOfMobile.has(u.mobile))
      add('mobile', `mobile is invalid: ${u.mobile} repeats row ${firstRowOfMobile.get(u.mobile)}`);
    else {
      mobile = u.mobile;
      firstRowOfMobile.set(mobile, row);
    }
    const remark = text(u.remark, 'remark', REMARK_MAX, false, add);
    // As everywhere in the pipeline, a number may come as its decimal string.
    const status =
      u.status === undefined || u.status === null
        ? 1
        : typeof u.status === 'string' && /^[01]$/.test(u.status)
          ? Number(u.status)
          : u.status;
    if (status !== 0 && status !== 1) add('status', 'status is invalid: must be 0 or 1');
    if (errors.length === before) rows.push({ row, name: name!, mobile: mobile!, remark, status: status as number });
  });
  return { rows, errors };
}

const ROWS_NAMED = 50;
const DETAILS = 10;

/**
 * 400 naming every failing row and its fields ("rows 3 (mobile), 17 (name, remark) are invalid: …"),
 * the first problems spelled out; all of them, one per row and field, in `data.errors`.
 */
export function batchRefused(errors: readonly RowError[]): AppError {
  const fieldsByRow = new Map<number, string[]>();
  for (const e of errors) {
    const fields = fieldsByRow.get(e.row) ?? [];
    if (!fields.includes(e.field)) fields.push(e.field);
    fieldsByRow.set(e.row, fields);
  }
  const rows = [...fieldsByRow.entries()].sort((a, b) => a[0] - b[0]);
  const named = rows.slice(0, ROWS_NAMED).map(([row, fields]) => `${row} (${fields.join(', ')})`);
  const moreRows = rows.length > ROWS_NAMED ? ` and ${rows.length - ROWS_NAMED} more rows` : '';
  const head = `${rows.length === 1 ? 'row' : 'rows'} ${named.join(', ')}${moreRows} ${rows.length === 1 ? 'is' : 'are'} invalid`;
  const details = errors
    .slice(0, DETAILS)
    .map((e) => `row ${e.row}: ${e.message}`)
    .join('; ');
  const moreDetails = errors.length > DETAILS ? `; … ${errors.length - DETAILS} more in data.errors` : '';
  return new AppError(ErrorCode.BAD_REQUEST, `${head}: ${details}${moreDetails}. Nothing was added.`, 200, {
    data: { errors },
  });
}
