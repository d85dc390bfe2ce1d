import { describe, expect, it } from 'vitest';
import { isValidIdCardNumber, maskIdNumber } from '../../src/platform/id-number.js';

describe('ID card numbers (GB 11643)', () => {
  it('accepts numbers whose check character is right, X included, and nothing else', () => {
    expect(isValidIdCardNumber('11010519491231002X')).toBe(true);
    expect(isValidIdCardNumber('440524188001010014')).toBe(true);
    expect(isValidIdCardNumber('110105194912310021')).toBe(false);
    expect(isValidIdCardNumber('11010519491231002x')).toBe(false);
    expect(isValidIdCardNumber('1101051949123100')).toBe(false);
    expect(isValidIdCardNumber('11010519491231002X ')).toBe(false);
  });

  it('masks the middle, keeping region and check part of an ID card, two and two of shorter documents', () => {
    expect(maskIdNumber('11010519491231002X')).toBe('110105********002X');
    expect(maskIdNumber('E12345678')).toBe('E1*****78');
    expect(maskIdNumber('1234')).toBe('****');
    expect(maskIdNumber(null)).toBeNull();
  });
});
