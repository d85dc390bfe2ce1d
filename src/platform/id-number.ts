/**
 * Identity document numbers (IdType of spec A 2.2): the GB 11643 check of a resident ID card number,
 * and the masked form used wherever a number is shown to someone who need not read it whole.
 */

export const IdType = { ID_CARD: 1 } as const;

const WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const CHECK = '10X98765432';

/** The 18-character resident ID card number with a right check character (upper-case X). */
export function isValidIdCardNumber(id: string): boolean {
  if (!/^\d{17}[\dX]$/.test(id)) return false;
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += (id.charCodeAt(i) - 48) * WEIGHTS[i];
  return CHECK[sum % 11] === id[17];
}

/**
 * Keeps the first and last few characters: 330106********123X for an ID card (region code and
 * check part), 2 + 2 for shorter documents; anything of 4 characters or fewer is masked whole.
 */
export function maskIdNumber(id: string | null | undefined): string | null {
  if (id == null) return null;
  if (id.length <= 4) return '*'.repeat(id.length);
  const [head, tail] = id.length >= 15 ? [6, 4] : [2, 2];
  return id.slice(0, head) + '*'.repeat(id.length - head - tail) + id.slice(id.length - tail);
}
