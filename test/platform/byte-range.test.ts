import { describe, expect, it } from 'vitest';
import { parseByteRange } from '../../src/platform/http/byte-range.js';

describe('the Range header of a file fetch', () => {
  it('reads one range: a-b, a- and the last n bytes, clipped to the object', () => {
    expect(parseByteRange('bytes=0-99', 1000)).toEqual({ start: 0, end: 99 });
    expect(parseByteRange('bytes=900-', 1000)).toEqual({ start: 900, end: 999 });
    expect(parseByteRange('bytes=-100', 1000)).toEqual({ start: 900, end: 999 });
    expect(parseByteRange('bytes=-5000', 1000)).toEqual({ start: 0, end: 999 });
    expect(parseByteRange('bytes=990-5000', 1000)).toEqual({ start: 990, end: 999 });
    expect(parseByteRange(' BYTES = 1 - 2 ', 1000)).toEqual({ start: 1, end: 2 });
  });

  it('answers unsatisfiable for a start at or past the end, and for any range of an empty file', () => {
    expect(parseByteRange('bytes=1000-', 1000)).toBe('unsatisfiable');
    expect(parseByteRange('bytes=1000-2000', 1000)).toBe('unsatisfiable');
    expect(parseByteRange('bytes=-0', 1000)).toBe('unsatisfiable');
    expect(parseByteRange('bytes=0-0', 0)).toBe('unsatisfiable');
    expect(parseByteRange('bytes=-5', 0)).toBe('unsatisfiable');
  });

  it('ignores what it does not serve (the whole file is sent): several ranges, another unit, nonsense', () => {
    for (const h of [
      undefined,
      '',
      'bytes=0-1,5-6',
      'items=0-1',
      'bytes=5-1',
      'bytes=-',
      'bytes=a-b',
      'bytes=99999999999999999999-',
    ]) {
      expect(parseByteRange(h, 1000), String(h)).toBeNull();
    }
  });
});
