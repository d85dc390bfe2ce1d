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

export async function verifyPassword(stored: string, plain: string): Promise<PasswordCheck> {
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
  await verify(await dummyHash, plain).catch(() => false);
}
