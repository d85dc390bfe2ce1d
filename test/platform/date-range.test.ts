import { describe, expect, it } from 'vitest';
import { dayText, parseDateRange } from '../../src/platform/date-range.js';
import { formatDateTime } from '../../src/platform/time.js';

// docs/architecture.md §5.10, TZ=Asia/Shanghai in tests.
describe('parseDateRange', () => {
  it('reads a start and an inclusive end, a bare end date covering its whole day', () => {
    const r = parseDateRange('createdTimeRange', ['2026-02-01', '2026-02-28'])!;
    expect([formatDateTime(r.start), formatDateTime(r.end)]).toEqual(['2026-02-01 00:00:00', '2026-02-28 23:59:59']);
    const timed = parseDateRange('createdTimeRange', ['2026-02-01 08:00:00', '2026-02-01 09:30:00'])!;
    expect(formatDateTime(timed.end)).toBe('2026-02-01 09:30:00');
    expect(dayText(r.end)).toBe('2026-02-28');
  });

  it('answers null for an absent or empty range, unless it is required', () => {
    expect(parseDateRange('d', undefined)).toBeNull();
    expect(parseDateRange('d', null)).toBeNull();
    expect(parseDateRange('d', [])).toBeNull();
    expect(() => parseDateRange('datePair', [], { required: true })).toThrow('datePair is required');
  });

  it('refuses impossible dates, reversed ranges and too long spans, naming the field', () => {
    const refusal = (value: string[], opts = {}) => {
      try {
        parseDateRange('activeTimeRange', value, opts);
      } catch (err) {
        return [(err as { errcode: number }).errcode, (err as Error).message];
      }
      return null;
    };
    expect(refusal(['2026-02-30', '2026-03-01'])).toEqual([
      400,
      'activeTimeRange[0] is invalid: "2026-02-30" is not a real date (YYYY-MM-DD HH:mm:ss)',
    ]);
    expect(refusal(['2026-03-01', '2026-13-01'])).toEqual([
      400,
      'activeTimeRange[1] is invalid: "2026-13-01" is not a real date (YYYY-MM-DD HH:mm:ss)',
    ]);
    expect(refusal(['2026-03-02', '2026-03-01'])).toEqual([
      400,
      'activeTimeRange is invalid: the start 2026-03-02 00:00:00 is after the end 2026-03-01 23:59:59',
    ]);
    expect(refusal(['2026-03-01'])).toEqual([400, 'activeTimeRange is invalid: must hold a start and an end date']);
    expect(refusal(['2025-01-01', '2026-01-01'], { maxDays: 366 })).toBeNull();
    expect(refusal(['2025-01-01', '2026-01-02'], { maxDays: 366 })).toEqual([
      400,
      'activeTimeRange is invalid: must span at most 366 days',
    ]);
  });
});
