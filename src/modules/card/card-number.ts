import { randomBytes } from 'node:crypto';

/** Card numbers: 16 digits, a prefix of 1–6 digits, random digits, and a Luhn check digit last. */
export const CARD_NUMBER_LENGTH = 16;

/** The Luhn check digit of a string of digits (the digit that makes `digits + check` pass). */
export function luhnCheckDigit(digits: string): string {
  let sum = 0;
  for (let i = digits.length - 1, double = true; i >= 0; i--, double = !double) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

export function isValidCardNumber(number: string): boolean {
  return /^\d{2,}$/.test(number) && luhnCheckDigit(number.slice(0, -1)) === number[number.length - 1];
}

/** The prefix a model's cards get unless a batch names one: 8 and the model id's last three digits. */
export function defaultPrefix(cardModelId: number): string {
  return `8${String(cardModelId % 1000).padStart(3, '0')}`;
}

/**
 * `count` distinct card numbers with the prefix, their middle digits from a CSPRNG (never a sequence
 * someone could walk). Unique among themselves; uniqueness in the database is its unique index's job.
 */
export function randomCardNumbers(prefix: string, count: number): string[] {
  const bodyLength = CARD_NUMBER_LENGTH - 1 - prefix.length;
  const out = new Set<string>();
  while (out.size < count) {
    const need = count - out.size;
    // One random byte per digit, rejecting 250–255 so every digit is equally likely.
    const bytes = randomBytes(Math.ceil(need * bodyLength * 1.05) + 16);
    let body = '';
    for (const b of bytes) {
      if (b >= 250) continue;
      body += String(b % 10);
      if (body.length === bodyLength) {
        const partial = prefix + body;
        out.add(partial + luhnCheckDigit(partial));
        body = '';
        if (out.size === count) break;
      }
    }
  }
  return [...out];
}
