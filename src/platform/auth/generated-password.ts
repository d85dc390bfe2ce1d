import { randomInt } from 'node:crypto';

// No look-alikes (0/O, 1/l/I): the password is read off a screen and typed in once.
const UPPER = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
const LOWER = 'abcdefghijkmnpqrstuvwxyz';
const DIGITS = '23456789';
const SYMBOLS = '@#%+=';
const ALL = UPPER + LOWER + DIGITS + SYMBOLS;

/**
 * A first or reset password that an administrator hands over once: `length` characters from a CSPRNG,
 * with at least one upper-case letter, lower-case letter, digit and symbol (about 75 bits at 12).
 */
export function generatePassword(length = 12): string {
  if (length < 8) throw new Error('a generated password has at least 8 characters');
  const chars = [UPPER, LOWER, DIGITS, SYMBOLS].map((set) => set[randomInt(set.length)]);
  while (chars.length < length) chars.push(ALL[randomInt(ALL.length)]);
  // Fisher–Yates, so the guaranteed classes do not always lead.
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j], chars[i]];
  }
  return chars.join('');
}
