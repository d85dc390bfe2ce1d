/**
 * The generator's output format: rows per table, encoded for the writer at hand (COPY text for
 * PostgreSQL, SQL literals for PGlite) from the same cells. Timestamps are ISO-8601 UTC strings and
 * dates 'YYYY-MM-DD' strings, fixed at generation time, so what is stored does not depend on the
 * backend or the session time zone.
 */
export type Cell = string | number | boolean | null;

/**
 * How a row becomes text for the writer: COPY text format (PostgreSQL) or an SQL tuple literal
 * (PGlite's multi-row INSERT). Sources encode their own rows into chunks of text, so the hot
 * check-in stream builds its text directly, without an array of cells per row.
 */
export interface Encoder {
  /** a whole row (COPY: ends with a newline; SQL: a parenthesised tuple) */
  row(cells: readonly Cell[]): string;
  /** one text cell */
  text(s: string): string;
  /** one text cell known to hold no quote, backslash, tab or line break (dates, times, digits) */
  plain(s: string): string;
  nul: string;
  /** between cells, before the first, after the last, and between two rows of a chunk */
  sep: string;
  open: string;
  close: string;
  between: string;
}

/** Consecutive encoded rows of one table, written at once. */
export interface Chunk {
  rows: number;
  text: string;
}

/** Consecutive rows of one table in COPY's binary format (binary-copy.ts), without header or trailer. */
export interface BinaryChunk {
  rows: number;
  bytes: Buffer;
  /** the UTC month 'YYYYMM' of the rows' partition column, when the table is partitioned by month */
  month: string;
}

/** A table's rows in COPY's binary format, for a server whose columns have exactly `types`. */
export interface BinaryRowsSource {
  /** each column's type as format_type names it ('bigint', 'timestamp with time zone', …) */
  types: readonly string[];
  chunks(maxRows: number): Iterable<BinaryChunk>;
}

export interface TableRows {
  table: string;
  columns: readonly string[];
  /** The rows as chunks of at most `maxRows`; produced lazily, so sources can stream. */
  chunks(enc: Encoder, maxRows: number): Iterable<Chunk>;
  /** Expected row count, for progress reporting (optional). */
  total?: number;
  /** The same rows in COPY's binary format (the check-in stream), which the PostgreSQL writer prefers. */
  binary?: BinaryRowsSource;
  /** The same rows as cells, which the PostgreSQL writer may encode in COPY's binary format itself. */
  cells?: () => Iterable<readonly Cell[]>;
  /** The rows as objects, for small tables built by fromObjects (written through repositories). */
  objects?: ReadonlyArray<Record<string, Cell>>;
}

const COPY_SPECIAL = /[\\\t\n\r]/;

function copyText(s: string): string {
  return COPY_SPECIAL.test(s)
    ? s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r')
    : s;
}

function copyCell(v: Cell): string {
  if (v === null) return '\\N';
  if (typeof v === 'string') return copyText(v);
  if (typeof v === 'boolean') return v ? 't' : 'f';
  return String(v);
}

export const COPY_ENCODER: Encoder = {
  row(cells) {
    let line = copyCell(cells[0]);
    for (let c = 1; c < cells.length; c++) line += '\t' + copyCell(cells[c]);
    return line + '\n';
  },
  text: copyText,
  plain: (s) => s,
  nul: '\\N',
  sep: '\t',
  open: '',
  close: '\n',
  between: '',
};

const sqlText = (s: string) => `'${s.replace(/'/g, "''")}'`;

function sqlCell(v: Cell): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return sqlText(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (!Number.isFinite(v)) throw new Error(`not a finite number: ${v}`);
  return String(v);
}

export const SQL_ENCODER: Encoder = {
  row: (cells) => '(' + cells.map(sqlCell).join(',') + ')',
  text: sqlText,
  plain: (s) => `'${s}'`,
  nul: 'null',
  sep: ',',
  open: '(',
  close: ')',
  between: ',',
};

/** Encodes rows of cells into chunks of at most `maxRows`. */
export function* encodeRows(rows: Iterable<readonly Cell[]>, enc: Encoder, maxRows: number): Generator<Chunk> {
  let text = '';
  let n = 0;
  for (const cells of rows) {
    text += (n === 0 ? '' : enc.between) + enc.row(cells);
    if (++n >= maxRows) {
      yield { rows: n, text };
      text = '';
      n = 0;
    }
  }
  if (n) yield { rows: n, text };
}

/** A small table given as objects with the same keys (the first object names the columns). */
export function fromObjects(table: string, objects: ReadonlyArray<Record<string, Cell>>): TableRows {
  const columns = objects.length ? Object.keys(objects[0]) : [];
  return {
    table,
    columns,
    chunks: (enc, maxRows) =>
      encodeRows(
        objects.map((o) => columns.map((c) => o[c] ?? null)),
        enc,
        maxRows,
      ),
    total: objects.length,
    objects,
  };
}

const TWO = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));

/**
 * ISO-8601 UTC text of an epoch-ms instant, 'YYYY-MM-DDTHH:MM:SSZ' (whole seconds; otherwise the
 * Date formatting). Pure integer arithmetic (civil date from day number, H. Hinnant's algorithm):
 * several times faster than Date#toISOString, which matters at millions of rows.
 */
export function isoTime(ms: number): string {
  if (ms % 1000 !== 0 || ms < 0) return new Date(ms).toISOString();
  const secs = ms / 1000;
  const z = Math.floor(secs / 86400);
  let sod = secs - z * 86400;
  const hh = Math.floor(sod / 3600);
  sod -= hh * 3600;
  const mi = Math.floor(sod / 60);
  const ss = sod - mi * 60;
  const zz = z + 719468;
  const era = Math.floor(zz / 146097);
  const doe = zz - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return `${y}-${TWO[m]}-${TWO[d]}T${TWO[hh]}:${TWO[mi]}:${TWO[ss]}Z`;
}
