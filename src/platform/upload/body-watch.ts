const CRLF = Buffer.from('\r\n');
const EMPTY = Buffer.alloc(0);
/** The end of the body kept to tell how it ended: the last delimiter, its part headers and some content. */
const TAIL_BYTES = 16 * 1024;
/**
 * Bytes allowed before the first delimiter. A real client's form starts with one (a preamble is
 * allowed by RFC 2046 and sent by nobody); past this, the body names another boundary, and busboy
 * would read it to its end as preamble, bounded only by the request timeout.
 */
export const PREAMBLE_MAX_BYTES = 64 * 1024;
// The Content-Type's boundary parameter, quoted or not (RFC 2046 §5.1.1).
const BOUNDARY_PARAM = /;\s*boundary\s*=\s*(?:"([^"]*)"|([^;\s]*))/i;

export const NO_USABLE_BOUNDARY = 'malformed multipart body: the Content-Type header names no usable boundary';
export const BOUNDARY_MISMATCH = 'malformed multipart body: the boundary does not match the Content-Type header';

/** The boundary the Content-Type header names, or null when it names none. */
export function boundaryOf(contentType: string | undefined): string | null {
  const m = contentType ? BOUNDARY_PARAM.exec(contentType) : null;
  const value = m ? (m[1] ?? m[2] ?? '') : '';
  return value.length > 0 ? value : null;
}

/** What follows `\r\n--boundary` in a real delimiter: `--` (the close), CRLF, or transport padding. */
function delimiterEndsAt(buf: Buffer, next: number): boolean | null {
  if (next + 2 > buf.length) return null;
  const a = buf[next],
    b = buf[next + 1];
  return (a === 0x2d && b === 0x2d) || (a === 0x0d && b === 0x0a) || a === 0x20 || a === 0x09;
}

/**
 * Watches the raw bytes of a multipart body as they arrive, so that a parser that only says
 * "unexpected end of multipart data" can be answered with what was wrong. Cheap on a good body: it
 * searches only until the first delimiter (the body's first line) and keeps the chunks that hold
 * the last 16 KiB.
 */
export class MultipartBodyWatch {
  private readonly delimiter: Buffer | null;
  private seen = false;
  // The parser reads the body as if a CRLF came first, so a delimiter on the first line counts.
  private carry: Buffer = CRLF;
  private tail: Buffer[] = [];
  private tailLength = 0;
  private total = 0;

  constructor(boundary: string | null) {
    this.delimiter = boundary ? Buffer.from(`\r\n--${boundary}`, 'latin1') : null;
  }

  /** No delimiter of the header's boundary within the first PREAMBLE_MAX_BYTES: it is not this body's. */
  get boundaryMissed(): boolean {
    return this.delimiter !== null && !this.seen && this.total > PREAMBLE_MAX_BYTES;
  }

  feed(chunk: Buffer): void {
    this.total += chunk.length;
    this.tail.push(chunk);
    this.tailLength += chunk.length;
    while (this.tail.length > 1 && this.tailLength - this.tail[0].length >= TAIL_BYTES)
      this.tailLength -= this.tail.shift()!.length;
    if (!this.seen && this.delimiter) this.search(chunk);
  }

  private search(chunk: Buffer): void {
    const d = this.delimiter!;
    const buf = Buffer.concat([this.carry, chunk]);
    for (let from = 0; ;) {
      const at = buf.indexOf(d, from);
      if (at < 0) break;
      const ends = delimiterEndsAt(buf, at + d.length);
      if (ends === null) {
        this.carry = Buffer.from(buf.subarray(at));
        return;
      }
      if (ends) {
        this.seen = true;
        this.carry = EMPTY;
        return;
      }
      from = at + 1;
    }
    this.carry = Buffer.from(buf.subarray(Math.max(0, buf.length - d.length - 1)));
  }

  /**
   * Why a body the parser could not finish is malformed. Judged on the bytes: no delimiter of the
   * header's boundary at all is a mismatch; a body that ends right after a delimiter, or after a
   * part's content and its CRLF, lacks only the closing `--boundary--`; one that ends inside a part's
   * headers or content (or before its declared length) has a truncated part.
   */
  diagnose(opts: { complete: boolean }): string {
    const prefix = 'malformed multipart body: ';
    if (!this.delimiter) return NO_USABLE_BOUNDARY;
    if (!opts.complete) return `${prefix}a part is truncated: the body ended before its declared length`;
    const d = this.delimiter;
    // A delimiter at the very end, with nothing after it, is a delimiter too.
    if (!this.seen && !(this.carry.length >= d.length && this.carry.subarray(0, d.length).equals(d)))
      return BOUNDARY_MISMATCH;
    const missingClose = `${prefix}the closing boundary is missing`;
    const truncated = `${prefix}a part is truncated`;
    const end = Buffer.concat(this.tailLength === this.total ? [CRLF, ...this.tail] : this.tail);
    let last = -1;
    for (let at = end.lastIndexOf(d); at >= 0; at = at > 0 ? end.lastIndexOf(d, at - 1) : -1) {
      if (delimiterEndsAt(end, at + d.length) !== false) {
        last = at;
        break;
      }
    }
    if (last < 0) return endsWithCrlf(end) ? missingClose : truncated;
    const rest = end.subarray(last + d.length);
    // a delimiter, or the close cut after its first dash
    if (/^(-|[ \t]*(\r\n?)?)$/.test(rest.toString('latin1'))) return missingClose;
    const headersEnd = rest.indexOf('\r\n\r\n');
    if (headersEnd < 0) return truncated;
    return endsWithCrlf(rest.subarray(headersEnd + 4)) ? missingClose : truncated;
  }
}

const endsWithCrlf = (b: Buffer) => b.length >= 2 && b[b.length - 2] === 0x0d && b[b.length - 1] === 0x0a;
