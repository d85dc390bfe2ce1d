import type { BinaryChunk, Cell } from './rows.js';

/**
 * COPY's binary format (PostgreSQL documentation, "COPY — Binary Format"), written by hand for the
 * fast load's bulk rows: the server takes each value as it is stored instead of parsing text (a
 * check-in has two timestamps, a date and seven bigints), about three times less server time per
 * check row than the text format (ADR 0103). Binary input is strict about types, so the writer uses
 * it only when the table's columns have exactly the types the rows are encoded for: the check-in
 * stream's own encoder (checks.ts, types checked by check-load.ts), or one encoder per column type
 * read from the catalog for rows given as cells (cellEncoders).
 */

/** The stream's 19-byte header: signature, flags, header-extension length. */
export const BINARY_COPY_HEADER = Buffer.from([
  0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00, 0, 0, 0, 0, 0, 0, 0, 0,
]);
/** The trailer: a field count of -1. */
export const BINARY_COPY_TRAILER = Buffer.from([0xff, 0xff]);

const TWO_32 = 4294967296;
/** 2000-01-01T00:00:00Z, PostgreSQL's epoch for timestamps and dates, in Unix ms. */
const PG_EPOCH_MS = 946_684_800_000;
const DAY_MS = 86_400_000;

/** Days from 2000-01-01 to a 'YYYY-MM-DD' calendar date: a date column's binary value. */
export function pgDays(date: string): number {
  const ms = Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)));
  return (ms - PG_EPOCH_MS) / DAY_MS;
}

/**
 * Rows in the binary format, appended to one growing buffer; `take` hands the bytes written so far
 * to the caller and starts again. Integers are written through a DataView (big-endian, as the format
 * wants); a bigint is split into two 32-bit halves, exact up to 2^53 like every id and microsecond
 * timestamp here.
 */
export class BinaryRows {
  private buf: Buffer;
  private view: DataView;
  private at = 0;

  constructor(capacity = 1 << 20) {
    this.buf = Buffer.allocUnsafe(capacity);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  }

  /** Room for `bytes` more; called once per row with the row's upper bound. */
  reserve(bytes: number): void {
    if (this.at + bytes <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + bytes));
    this.buf.copy(next, 0, 0, this.at);
    this.buf = next;
    this.view = new DataView(next.buffer, next.byteOffset, next.byteLength);
  }

  /** A row's field count. */
  row(fields: number): void {
    this.view.setInt16(this.at, fields);
    this.at += 2;
  }

  int8(v: number): void {
    const hi = Math.floor(v / TWO_32);
    this.view.setInt32(this.at, 8);
    this.view.setInt32(this.at + 4, hi);
    this.view.setUint32(this.at + 8, v - hi * TWO_32);
    this.at += 12;
  }

  int4(v: number): void {
    this.view.setInt32(this.at, 4);
    this.view.setInt32(this.at + 4, v);
    this.at += 8;
  }

  int2(v: number): void {
    this.view.setInt32(this.at, 2);
    this.view.setInt16(this.at + 4, v);
    this.at += 6;
  }

  /** timestamptz of an epoch-ms instant: microseconds since 2000-01-01 UTC. */
  timestamp(ms: number): void {
    this.int8((ms - PG_EPOCH_MS) * 1000);
  }

  /** date: days since 2000-01-01 (see pgDays). */
  date(days: number): void {
    this.int4(days);
  }

  bool(v: boolean): void {
    this.view.setInt32(this.at, 1);
    this.buf[this.at + 4] = v ? 1 : 0;
    this.at += 5;
  }

  /** A text value (UTF-8). */
  text(s: string): void {
    const n = this.buf.write(s, this.at + 4, 'utf8');
    this.view.setInt32(this.at, n);
    this.at += 4 + n;
  }

  nul(): void {
    this.view.setInt32(this.at, -1);
    this.at += 4;
  }

  /** Fields encoded beforehand (encodeFields): copied as they are. */
  fields(bytes: Uint8Array): void {
    this.buf.set(bytes, this.at);
    this.at += bytes.length;
  }

  /** The bytes written since the last take (a copy: the buffer is reused). */
  take(): Buffer {
    const out = Buffer.from(this.buf.subarray(0, this.at));
    this.at = 0;
    return out;
  }

  get length(): number {
    return this.at;
  }
}

/** Text or bigint fields, each with its length word, to repeat in many rows with `fields`. */
export function encodeFields(
  values: ReadonlyArray<string | number | null>,
  kinds: ReadonlyArray<'text' | 'int8'>,
): Buffer {
  const parts: Buffer[] = [];
  values.forEach((v, k) => {
    if (v === null) {
      const b = Buffer.alloc(4);
      b.writeInt32BE(-1);
      parts.push(b);
    } else if (kinds[k] === 'int8') {
      const b = Buffer.alloc(12);
      b.writeInt32BE(8);
      b.writeBigInt64BE(BigInt(v), 4);
      parts.push(b);
    } else {
      const text = Buffer.from(String(v), 'utf8');
      const b = Buffer.alloc(4);
      b.writeInt32BE(text.length);
      parts.push(b, text);
    }
  });
  return Buffer.concat(parts);
}

type CellEncoder = (out: BinaryRows, v: Cell) => void;

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|[+-]\d{2}:\d{2})$/;
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

function instantMs(v: Cell): number {
  // The generator's instants are ISO-8601 strings with a zone (rows.ts); anything else would be read
  // in the process's zone, so it is refused rather than guessed.
  if (typeof v !== 'string' || !ISO_INSTANT.test(v)) throw new Error(`not an ISO-8601 instant: ${String(v)}`);
  return Date.parse(v);
}

const CELL_ENCODERS: Record<string, CellEncoder> = {
  bigint: (out, v) => out.int8(Number(v)),
  integer: (out, v) => out.int4(Number(v)),
  smallint: (out, v) => out.int2(Number(v)),
  boolean: (out, v) => out.bool(v === true),
  'character varying': (out, v) => out.text(String(v)),
  text: (out, v) => out.text(String(v)),
  'timestamp with time zone': (out, v) => out.timestamp(instantMs(v)),
  date: (out, v) => {
    if (typeof v !== 'string' || !ISO_DAY.test(v)) throw new Error(`not a date YYYY-MM-DD: ${String(v)}`);
    out.date(pgDays(v));
  },
};

/** Each column's encoder for its type (format_type's name); null when one of the types has none here. */
export function cellEncoders(types: ReadonlyArray<string | null>): CellEncoder[] | null {
  const encoders = types.map((t) => (t === null ? undefined : CELL_ENCODERS[t]));
  return encoders.every((e) => e !== undefined) ? (encoders as CellEncoder[]) : null;
}

/** Rows of cells in COPY's binary format, in chunks of at most `maxRows`. */
export function* encodeCellsBinary(
  rows: Iterable<readonly Cell[]>,
  encoders: readonly CellEncoder[],
  maxRows: number,
): Generator<BinaryChunk> {
  const out = new BinaryRows();
  let n = 0;
  for (const cells of rows) {
    out.reserve(
      2 + cells.length * 12 + cells.reduce<number>((k, c) => k + (typeof c === 'string' ? c.length * 3 : 0), 0),
    );
    out.row(cells.length);
    for (let c = 0; c < cells.length; c++) {
      const v = cells[c];
      if (v === null) out.nul();
      else encoders[c](out, v);
    }
    if (++n >= maxRows) {
      yield { rows: n, bytes: out.take(), month: '' };
      n = 0;
    }
  }
  if (n) yield { rows: n, bytes: out.take(), month: '' };
}
