import { badRequest } from '../../platform/errors.js';
import { normaliseIdNumber } from '../../platform/id-document.js';

/** IdType of spec A 2.2 (codes 1–9). */
export const IdType = {
  ID_CARD: 1,
  PASSPORT: 2,
  HK_MACAO_PERMIT: 3,
  TAIWAN_PERMIT: 4,
  DRIVING_LICENCE: 5,
  RESIDENCE_PERMIT: 6,
  OFFICER_CERTIFICATE: 7,
  STUDENT_CARD: 8,
  BIRTH_CERTIFICATE: 9,
} as const;

/** A contact without idType holds a resident ID card, the document nearly every mainland visitor shows. */
export const DEFAULT_ID_TYPE = IdType.ID_CARD;

const WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const CHECK = '10X98765432';

/** The GB 11643-1999 check character of the first 17 digits. */
export function gb11643CheckDigit(first17: string): string {
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += (first17.charCodeAt(i) - 48) * WEIGHTS[i];
  return CHECK[sum % 11];
}

/**
 * Why an 18-character citizen number (resident ID card, and the residence permits that follow the same
 * standard) is not valid, or null when it is: 17 digits and a check character, a real birth date
 * between 1900 and today, and the right check character.
 */
function citizenNumberProblem(id: string, today: Date): string | null {
  if (!/^\d{17}[\dX]$/.test(id)) return 'must be 18 characters: 17 digits and a check digit (0-9 or X)';
  const [y, m, d] = [Number(id.slice(6, 10)), Number(id.slice(10, 12)), Number(id.slice(12, 14))];
  const birth = new Date(y, m - 1, d);
  if (y < 1900 || birth.getFullYear() !== y || birth.getMonth() !== m - 1 || birth.getDate() !== d) {
    return `holds no real birth date (${id.slice(6, 14)})`;
  }
  if (birth.getTime() > today.getTime()) return `holds a birth date in the future (${id.slice(6, 14)})`;
  if (gb11643CheckDigit(id.slice(0, 17)) !== id[17]) return 'has a wrong check digit';
  return null;
}

interface Rule {
  label: string;
  /** why the (trimmed, upper-cased) number is not valid, or null */
  problem(id: string, today: Date): string | null;
}

const shaped = (pattern: RegExp, form: string) => (id: string) => (pattern.test(id) ? null : `must be ${form}`);

const RULES: Record<number, Rule> = {
  [IdType.ID_CARD]: { label: 'resident ID card', problem: citizenNumberProblem },
  [IdType.PASSPORT]: { label: 'passport', problem: shaped(/^[A-Z0-9]{5,17}$/, '5-17 letters and digits') },
  [IdType.HK_MACAO_PERMIT]: {
    label: 'Hong Kong/Macao travel permit',
    problem: shaped(/^[HM]\d{8}(\d{2})?$/, 'H or M followed by 8 or 10 digits'),
  },
  [IdType.TAIWAN_PERMIT]: {
    label: 'Taiwan compatriot permit',
    problem: shaped(/^(\d{8}|\d{10}|[A-Z]\d{9})$/, '8 or 10 digits, or a letter and 9 digits'),
  },
  [IdType.DRIVING_LICENCE]: {
    label: 'driving licence',
    problem: shaped(/^[A-Z0-9]{8,18}$/, '8-18 letters and digits'),
  },
  // Residence permits of Hong Kong, Macao and Taiwan residents and the foreigners' permanent
  // residence card carry 18-character numbers under the same check-digit standard.
  [IdType.RESIDENCE_PERMIT]: { label: 'residence permit', problem: citizenNumberProblem },
  [IdType.OFFICER_CERTIFICATE]: {
    label: 'military officer certificate',
    problem: shaped(/^[\p{Script=Han}A-Z0-9-]{4,20}$/u, '4-20 Chinese characters, letters, digits or -'),
  },
  [IdType.STUDENT_CARD]: { label: 'student card', problem: shaped(/^[A-Z0-9-]{4,32}$/, '4-32 letters, digits or -') },
  [IdType.BIRTH_CERTIFICATE]: { label: 'birth certificate', problem: shaped(/^[A-Z]\d{9}$/, 'a letter and 9 digits') },
};

/**
 * The identity number as stored (trimmed, letters upper-cased: a lower-case x check digit is an X),
 * after checking it against its document type; a 400 naming identityNo and the document otherwise.
 */
export function normaliseIdentityNo(idType: number, identityNo: string, today = new Date()): string {
  const rule = RULES[idType];
  if (!rule) throw badRequest('idType is invalid: must be between 1 and 9');
  const id = normaliseIdNumber(identityNo);
  const problem = rule.problem(id, today);
  if (problem) throw badRequest(`identityNo is invalid: a ${rule.label} number (idType ${idType}) ${problem}`);
  return id;
}
