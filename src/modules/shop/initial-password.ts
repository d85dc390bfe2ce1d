import { randomInt } from 'node:crypto';

// Without look-alikes (0/O, 1/l/I), so a password read from a screen is typed right.
const UPPER = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
const LOWER = 'abcdefghijkmnopqrstuvwxyz';
const DIGITS = '23456789';
const SYMBOLS = '@#%+=?';
const ALL = UPPER + LOWER + DIGITS + SYMBOLS;

/**
 * A 14-character password from the system's CSPRNG with at least one of each character class, for
 * accounts created on someone's behalf (the default shop user). About 82 bits of entropy.
 */
export function generatePassword(length = 14): string {
  const chars = [UPPER, LOWER, DIGITS, SYMBOLS].map((set) => set[randomInt(set.length)]);
  while (chars.length < length) chars.push(ALL[randomInt(ALL.length)]);
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j], chars[i]];
  }
  return chars.join('');
}
