// Identity documents of the IdType enumeration (spec A 2.2): 1 ID card, 2 passport, 3 Hong Kong/Macao
// permit, 4 Taiwan compatriot permit, 5 driving licence, 6 residence permit, 7 military officer
// certificate, 8 student card, 9 birth certificate.

const WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const CHECK = '10X98765432';

/** The GB 11643 check character of the first 17 digits of an 18-character ID number. */
export function idCardCheckDigit(first17: string): string {
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += Number(first17[i]) * WEIGHTS[i];
  return CHECK[sum % 11];
}

/** The birth date an 18-character ID number carries, when it is a real past date. */
function birthDateOk(idNo: string, today: Date): boolean {
  const y = Number(idNo.slice(6, 10));
  const m = Number(idNo.slice(10, 12));
  const d = Number(idNo.slice(12, 14));
  const date = new Date(y, m - 1, d);
  if (date.getFullYear() !== y || date.getMonth() !== m - 1 || date.getDate() !== d) return false;
  return y >= 1900 && date.getTime() <= today.getTime();
}

function checkIdCard(idNo: string, today: Date): string | null {
  if (!/^\d{17}[\dX]$/.test(idNo)) return 'must be 18 characters: 17 digits and a digit or X';
  if (!birthDateOk(idNo, today)) return 'does not carry a real birth date';
  if (idCardCheckDigit(idNo.slice(0, 17)) !== idNo[17]) return 'has a wrong check digit';
  return null;
}

const OTHER_RULES: Record<number, { pattern: RegExp; text: string }> = {
  2: { pattern: /^[A-Z0-9]{5,17}$/, text: '5 to 17 letters or digits' },
  3: { pattern: /^[HM]\d{8,10}$/, text: 'H or M followed by 8 to 10 digits' },
  4: { pattern: /^(\d{8}|\d{10}|[A-Z]\d{9})$/, text: '8 or 10 digits (or a letter and 9 digits)' },
  5: { pattern: /^[A-Z0-9]{12,18}$/, text: '12 to 18 letters or digits' },
  7: { pattern: /^[\u4e00-\u9fa5A-Z0-9]{4,20}$/, text: '4 to 20 Chinese characters, letters or digits' },
  8: { pattern: /^[A-Z0-9-]{4,32}$/, text: '4 to 32 letters, digits or hyphens' },
  9: { pattern: /^[A-Z]?\d{9,12}$/, text: '9 to 12 digits, optionally after one letter' },
};

/**
 * The document number as stored: full-width forms folded (NFKC: "３３０１…" typed with a Chinese input
 * method is 3301…), trimmed, letters upper-cased (a lower-case x check digit is common).
 */
export function normaliseIdNumber(idNo: string): string {
  return idNo.normalize('NFKC').trim().toUpperCase();
}

/**
 * Why `idNo` is not a valid number of the document type, or null when it is. ID cards and residence
 * permits (same 18-character form) are checked fully: form, real birth date, GB 11643 check digit.
 * Expects a normalised number (normaliseIdNumber).
 */
export function idNumberProblem(idType: number, idNo: string, today = new Date()): string | null {
  if (idType === 1 || idType === 6) return checkIdCard(idNo, today);
  const rule = OTHER_RULES[idType];
  if (!rule) return 'has an unknown document type';
  return rule.pattern.test(idNo) ? null : `must be ${rule.text}`;
}
