import { describe, expect, it } from 'vitest';
import { gb11643CheckDigit, normaliseIdentityNo } from '../../src/modules/member/identity-number.js';
import { AppError } from '../../src/platform/errors.js';

const TODAY = new Date(2026, 5, 30);
const refusal = (idType: number, id: string) => {
  try {
    normaliseIdentityNo(idType, id, TODAY);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).errcode).toBe(400);
    return (err as AppError).message;
  }
  return null;
};
const withCheck = (first17: string) => first17 + gb11643CheckDigit(first17);

describe('identity numbers by idType', () => {
  it("computes the GB 11643 check digit (the standard's own example, and an X)", () => {
    expect(gb11643CheckDigit('11010519491231002')).toBe('X');
    expect(gb11643CheckDigit('44052419800101001')).toBe('3');
  });

  it('accepts real resident ID numbers, upper-casing the X', () => {
    expect(normaliseIdentityNo(1, '11010519491231002x', TODAY)).toBe('11010519491231002X');
    expect(normaliseIdentityNo(1, ' 440524198001010013 ', TODAY)).toBe('440524198001010013');
    expect(normaliseIdentityNo(1, withCheck('33010620000229123'), TODAY)).toMatch(/^33010620000229123/);
    expect(normaliseIdentityNo(6, withCheck('81000019900101123'), TODAY)).toMatch(/^810000/);
  });

  it('refuses wrong check digits, impossible or future birth dates and wrong lengths', () => {
    expect(refusal(1, '440524198001010015')).toMatch(/wrong check digit/);
    expect(refusal(1, withCheck('33010619990229123'))).toMatch(/no real birth date \(19990229\)/);
    expect(refusal(1, withCheck('33010618991231123'))).toMatch(/no real birth date/);
    expect(refusal(1, withCheck('33010620260701123'))).toMatch(/birth date in the future \(20260701\)/);
    expect(refusal(1, withCheck('33010620260630123'))).toBeNull();
    expect(refusal(1, '4405241980010100')).toMatch(/must be 18 characters/);
    expect(refusal(1, '44052419800101001Y')).toMatch(/must be 18 characters/);
  });

  it('checks the other documents by their form', () => {
    const ok: Array<[number, string]> = [
      [2, 'E12345678'],
      [3, 'H12345678'],
      [3, 'm1234567890'],
      [4, '12345678'],
      [4, 'A123456789'],
      [5, '330106199001011234'],
      [7, '南字第12345678号'],
      [8, '2024-00123'],
      [9, 'O510012345'],
    ];
    for (const [type, id] of ok) expect(refusal(type, id), `${type} ${id}`).toBeNull();
    const bad: Array<[number, string]> = [
      [2, 'E1234'.slice(0, 4)],
      [2, 'E-1234567'],
      [3, 'X12345678'],
      [4, '1234567'],
      [5, 'ABC'],
      [7, 'x'],
      [8, 'a b c d'],
      [9, '1234567890'],
    ];
    for (const [type, id] of bad)
      expect(refusal(type, id), `${type} ${id}`).toMatch(new RegExp(`^identityNo is invalid: .*\\(idType ${type}\\)`));
    expect(refusal(10, 'E12345678')).toBe('idType is invalid: must be between 1 and 9');
  });
});
