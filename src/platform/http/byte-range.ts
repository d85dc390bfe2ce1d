import type { ByteRange } from '../storage/object-store.js';

/**
 * The one range of a `Range: bytes=…` header over an object of `size` bytes (RFC 9110 §14.1.2):
 * `a-b`, `a-` or the last `-n` bytes, `b` clipped to the object. 'unsatisfiable' when it starts at or
 * beyond the end (416); null when the header is absent, malformed, asks for several ranges or names
 * another unit: the whole object is sent then, as a server may.
 */
export function parseByteRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | null {
  if (!header) return null;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (size === 0) return 'unsatisfiable';
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? Number.MAX_SAFE_INTEGER : Number(m[2]);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end: Math.min(end, size - 1) };
}
