import { badRequest } from './errors.js';

/** A required text without its surrounding blanks; blank alone is refused as missing. */
export function nonBlank(field: string, text: string): string {
  const trimmed = text.trim();
  if (!trimmed) throw badRequest(`${field} is required`);
  return trimmed;
}

/** An optional text of an update: absent or null keeps what is stored, "" (or blanks) clears it. */
export function optionalText(given: string | null | undefined, stored: string | null): string | null {
  if (given === undefined || given === null) return stored;
  const text = given.trim();
  return text === '' ? null : text;
}
