import { describe, expect, it } from 'vitest';
import { hundredths, percent } from '../../src/modules/statistics/ratios.js';

describe('two-decimal ratios of the statistics', () => {
  it('round halves up from the integers, not from a float that fell just below the half', () => {
    expect(23 / 40).toBe(0.575);
    expect(Math.round((23 / 40) * 100) / 100).toBe(0.57); // the float product is 57.49999…
    expect(hundredths(23, 40)).toBe(0.58);
    expect(hundredths(1, 8)).toBe(0.13);
    expect(hundredths(13, 6)).toBe(2.17);
    expect(percent(23, 40)).toBe(57.5);
    expect(percent(1, 3)).toBe(33.33);
    expect(percent(2, 3)).toBe(66.67);
    expect(percent(1, 1)).toBe(100);
  });

  it('answer 0 when there is nothing to divide by', () => {
    expect(hundredths(5, 0)).toBe(0);
    expect(percent(0, 0)).toBe(0);
  });
});
