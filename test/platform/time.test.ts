import { describe, expect, it } from 'vitest';
import { formatDateTime, parseDateTime } from '../../src/platform/time.js';

// docs/architecture.md §5.10: wire dates are 'YYYY-MM-DD HH:mm:ss' in the service zone (TZ=Asia/Shanghai here).
describe('wire dates', () => {
  it('read and write the service time zone', () => {
    const d = parseDateTime('2026-03-05 08:09:10')!;
    expect(d.toISOString()).toBe('2026-03-05T00:09:10.000Z');
    expect(formatDateTime(d)).toBe('2026-03-05 08:09:10');
    expect(formatDateTime(null)).toBeNull();
  });

  it('write every field with two digits, whatever the instant', () => {
    // A minute a little over a week apart, for a century: every month, day, hour, minute and second.
    for (let ms = Date.UTC(1950, 0, 1); ms < Date.UTC(2050, 0, 1); ms += 604_861_001) {
      const d = new Date(ms);
      const two = (n: number) => String(n).padStart(2, '0');
      expect(formatDateTime(d)).toBe(
        `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`,
      );
    }
  });

  it('take a bare date as the start of the day, or its end for the end of a range', () => {
    expect(formatDateTime(parseDateTime('2026-03-05'))).toBe('2026-03-05 00:00:00');
    expect(formatDateTime(parseDateTime('2026-03-05', true))).toBe('2026-03-05 23:59:59');
    expect(formatDateTime(parseDateTime('2026-03-05 10:30', true))).toBe('2026-03-05 10:30:00');
  });

  it('refuse dates that do not exist', () => {
    for (const bad of ['2026-02-30', '2026-13-01', '2026-01-01 24:00:00', '2026-01-01 10:61', '05/03/2026', '']) {
      expect(parseDateTime(bad), bad).toBeNull();
    }
  });
});
