import { hash, randomBytes } from 'node:crypto';

/** 256-bit random tokens; only their SHA-256 is ever stored. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** 128-bit id of a login session, kept across token refreshes. */
export function newSessionId(): string {
  return randomBytes(16).toString('hex');
}

/** Runs on every authenticated request: the one-shot digest costs a third of a Hash object's. */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}

/** `Authorization: Bearer <token>`, the prefix optional as the Java family accepts. */
export function tokenFromHeader(header: string | undefined): string | null {
  if (!header) return null;
  const value = header
    .trim()
    .replace(/^bearer\s+/i, '')
    .trim();
  return value.length >= 16 && value.length <= 256 ? value : null;
}
