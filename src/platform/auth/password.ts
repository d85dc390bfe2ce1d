import { hash, verify } from '@node-rs/argon2';
import bcrypt from 'bcryptjs';

// argon2id with the OWASP-recommended minimum (19 MiB, 2 passes): ~15 ms here.
const ARGON2_OPTIONS = { algorithm: 2 as const, memoryCost: 19456, timeCost: 2, parallelism: 1 };

export function hashPassword(plain: string): Promise<string> {
  return hash(plain, ARGON2_OPTIONS);
}

export interface PasswordCheck {
  ok: boolean;
  /** The stored hash is of an older kind (bcrypt from the Java system) and should be replaced. */
  needsRehash: boolean;
}

/**
 * Password verifications made by this process, by the kind and cost of the hash verified
 * ("argon2id m=19456,t=2,p=1", "bcrypt 10"): the dearest step of a login, on /metrics. A rising count
 * of an old cost tells how many accounts still log in with a hash from before a change of parameters.
 */
export const passwordVerifications = new Map<string, number>();

function costOf(stored: string): string {
  const argon2 = /^\$(argon2(?:id|i|d))\$v=\d+\$([^$]+)\$/.exec(stored);
  if (argon2) return `${argon2[1]} ${argon2[2]}`;
  const bcryptCost = /^\$2[aby]\$(\d+)\$/.exec(stored);
  return bcryptCost ? `bcrypt ${Number(bcryptCost[1])}` : 'unknown';
}

function counted(stored: string): void {
  const cost = costOf(stored);
  passwordVerifications.set(cost, (passwordVerifications.get(cost) ?? 0) + 1);
}

export async function verifyPassword(stored: string, plain: string): Promise<PasswordCheck> {
  counted(stored);
  if (stored.startsWith('$argon2')) {
    try {
      return { ok: await verify(stored, plain), needsRehash: false };
    } catch {
      return { ok: false, needsRehash: false };
    }
  }
  if (/^\$2[aby]\$/.test(stored)) {
    const ok = await bcrypt.compare(plain, stored);
    return { ok, needsRehash: ok };
  }
  return { ok: false, needsRehash: false };
}

let dummyHash: Promise<string> | null = null;

/** Spends the time of a real check, so an unknown account answers as slowly as a wrong password. */
export async function verifyAgainstDummy(plain: string): Promise<void> {
  dummyHash ??= hashPassword('dummy-password-for-timing');
  const hashed = await dummyHash;
  counted(hashed);
  await verify(hashed, plain).catch(() => false);
}
