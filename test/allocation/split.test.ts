import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { largestRemainderSplit, percentText } from '../../src/modules/allocation/split.js';
import { allocateScope, monthlyTotal, monthsOfRun } from '../../src/modules/allocation/calculation.js';

/** The split of docs/domain.md §2 as properties: conservation, fairness within a cent, deterministic ties. */

// Small weights and totals as often as large ones, so equal remainders (ties) are common.
const weight = fc.oneof(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 5_000_000 }));
const parts = fc.uniqueArray(fc.record({ id: fc.integer({ min: 1, max: 1_000_000 }), weight }), {
  minLength: 1,
  maxLength: 40,
  selector: (p) => p.id,
});
const total = fc.oneof(fc.bigInt({ min: 0n, max: 100n }), fc.bigInt({ min: 0n, max: 10n ** 14n }));

describe('largestRemainderSplit', () => {
  it('conserves the total to the cent whenever any part has checks, and gives 0 to all otherwise', () => {
    fc.assert(
      fc.property(total, parts, (t, ps) => {
        const shares = largestRemainderSplit(t, ps);
        const sum = shares.reduce((a, b) => a + b, 0n);
        const weight = ps.reduce((a, p) => a + p.weight, 0);
        expect(sum).toBe(weight === 0 ? 0n : t);
        expect(shares.every((s) => s >= 0n)).toBe(true);
      }),
    );
  });

  it('keeps every share within one cent of its exact proportion: floor or floor + 1', () => {
    fc.assert(
      fc.property(total, parts, (t, ps) => {
        const W = BigInt(ps.reduce((a, p) => a + p.weight, 0));
        fc.pre(W > 0n);
        largestRemainderSplit(t, ps).forEach((s, i) => {
          const exactNumerator = t * BigInt(ps[i].weight); // exact share = exactNumerator / W
          expect(s * W <= exactNumerator + W - 1n && (s - 1n) * W < exactNumerator).toBe(true);
          const floor = exactNumerator / W;
          expect(s === floor || s === floor + 1n).toBe(true);
        });
      }),
    );
  });

  it('gives the left-over cents to the largest remainders first, ties to the lower id, whatever the input order', () => {
    fc.assert(
      fc.property(total, parts, fc.integer(), (t, ps, seed) => {
        const W = BigInt(ps.reduce((a, p) => a + p.weight, 0));
        fc.pre(W > 0n);
        const shares = largestRemainderSplit(t, ps);
        const byId = new Map(ps.map((p, i) => [p.id, shares[i]]));
        // Any part that got the extra cent ranks before any part that did not.
        const ranked = ps.map((p, i) => ({
          id: p.id,
          rem: (t * BigInt(p.weight)) % W,
          extra: shares[i] - (t * BigInt(p.weight)) / W,
        }));
        for (const a of ranked) {
          for (const b of ranked) {
            if (a.extra === 1n && b.extra === 0n) expect(a.rem > b.rem || (a.rem === b.rem && a.id < b.id)).toBe(true);
          }
        }
        // A shuffled input gives every id the same share.
        const shuffled = [...ps].sort(
          (x, y) => ((x.id * 2654435761 + seed) >>> 0) - ((y.id * 2654435761 + seed) >>> 0),
        );
        const again = largestRemainderSplit(t, shuffled);
        shuffled.forEach((p, i) => expect(again[i]).toBe(byId.get(p.id)));
      }),
    );
  });

  it('splits a hand-worked case: 100 cents over three equal parks gives the odd cent to the lowest id', () => {
    expect(
      largestRemainderSplit(100n, [
        { id: 9, weight: 1 },
        { id: 3, weight: 1 },
        { id: 5, weight: 1 },
      ]),
    ).toEqual([33n, 34n, 33n]);
    expect(
      largestRemainderSplit(10n, [
        { id: 1, weight: 1 },
        { id: 2, weight: 2 },
        { id: 3, weight: 4 },
      ]),
    ).toEqual([1n, 3n, 6n]);
    expect(
      largestRemainderSplit(7n, [
        { id: 1, weight: 0 },
        { id: 2, weight: 0 },
      ]),
    ).toEqual([0n, 0n]);
    expect(largestRemainderSplit(5n, [])).toEqual([]);
  });

  it('refuses a negative total or weight', () => {
    expect(() => largestRemainderSplit(-1n, [{ id: 1, weight: 1 }])).toThrow(RangeError);
    expect(() => largestRemainderSplit(1n, [{ id: 1, weight: -1 }])).toThrow(RangeError);
  });
});

describe('percentText and monthlyTotal', () => {
  it('rounds the percent half up to four decimals', () => {
    expect(percentText(1, 3)).toBe('33.3333');
    expect(percentText(2, 3)).toBe('66.6667');
    expect(percentText(1, 8)).toBe('12.5000');
    expect(percentText(1, 1)).toBe('100.0000');
    expect(percentText(0, 0)).toBe('0.0000');
    expect(percentText(1, 16_000_000)).toBe('0.0000');
    expect(percentText(1, 15_999_999)).toBe('0.0000');
    expect(percentText(1, 2_000_000)).toBe('0.0001');
  });

  it("computes the month's total: ratio floors, fixed multiplies", () => {
    const model = { price: 19800, validityMonths: 12 };
    // 3 users × 198.00 × 80 % ÷ 12 = 39.60
    expect(monthlyTotal(3, model, { calcMode: 'ratio', ratio: 80, fixedAmount: null })).toBe(3960n);
    // 7 × 19800 × 33 ÷ 1200 = 3811.5 → 3811
    expect(monthlyTotal(7, model, { calcMode: 'ratio', ratio: 33, fixedAmount: null })).toBe(3811n);
    expect(monthlyTotal(7, model, { calcMode: 'fixed', ratio: null, fixedAmount: 250 })).toBe(1750n);
    expect(monthlyTotal(0, model, { calcMode: 'fixed', ratio: null, fixedAmount: 250 })).toBe(0n);
  });

  it('conserves the scope total across its details for random scopes', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5_000_000 }),
        fc.integer({ min: 0, max: 100 }),
        parts,
        (users, ratio, ps) => {
          const model = { id: 1, name: 'm', price: 39800, validityMonths: 12, allocationEnabled: true };
          const r = allocateScope(
            { year: 2026, month: 5 },
            model,
            users,
            ps.map((p) => ({ parkId: p.id, parkName: 'p', merchantId: null, shopId: null, checkNum: p.weight })),
            { calcMode: 'ratio', ratio, fixedAmount: null },
          )!;
          const sum = r.details.reduce((a, d) => a + d.distributeAmount, 0);
          expect(sum).toBe(ps.some((p) => p.weight > 0) ? r.totalDistributeAmount : 0);
          expect(r.parkCount).toBe(ps.length);
        },
      ),
    );
  });
});

describe('monthsOfRun', () => {
  // The test process runs in the service zone, Asia/Shanghai (UTC+8).
  const at = (iso: string) => new Date(iso);

  it('takes months (deduplicated, ascending) over month, and month alone', () => {
    const now = at('2026-04-15T12:00:00+08:00');
    expect(monthsOfRun({ year: 2026, month: 7, months: [6, 4, 6] }, now)).toEqual([4, 6]);
    expect(monthsOfRun({ year: 2030, month: 7 }, now)).toEqual([7]);
    expect(monthsOfRun({ year: 2026, month: 7, months: [] }, now)).toEqual([7]);
  });

  it('reads year alone as its months begun so far: a past year all twelve, the current year to this month, a future year none', () => {
    const now = at('2026-04-15T12:00:00+08:00');
    expect(monthsOfRun({ year: 2025 }, now)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(monthsOfRun({ year: 2026 }, now)).toEqual([1, 2, 3, 4]);
    expect(monthsOfRun({ year: 2026, month: null, months: [] }, now)).toEqual([1, 2, 3, 4]);
    expect(monthsOfRun({ year: 2027 }, now)).toEqual([]);
  });

  it('finds the current month and year in the service time zone, not UTC', () => {
    // 2026-03-31 16:30 UTC is already 1 April in the service zone.
    expect(monthsOfRun({ year: 2026 }, at('2026-03-31T16:30:00Z'))).toEqual([1, 2, 3, 4]);
    expect(monthsOfRun({ year: 2026 }, at('2026-03-31T15:59:59Z'))).toEqual([1, 2, 3]);
    // New Year in the service zone while UTC is still in December: 2026 is past, 2027 has January.
    expect(monthsOfRun({ year: 2026 }, at('2026-12-31T16:00:00Z'))).toHaveLength(12);
    expect(monthsOfRun({ year: 2027 }, at('2026-12-31T16:00:00Z'))).toEqual([1]);
    expect(monthsOfRun({ year: 2026 }, at('2026-12-31T15:59:59Z'))).toHaveLength(12);
    expect(monthsOfRun({ year: 2027 }, at('2026-12-31T15:59:59Z'))).toEqual([]);
  });
});
