import type { Store } from '../../platform/store/store.js';
import { enforceRate } from '../../platform/rate-limit.js';

export const MAX_FAILED_LOGINS = 5;
const LOCK_MINUTES = 10;

/** Login attempts per IP and per account name, counted in the store so the limit holds across instances. */
export async function limitLoginAttempts(store: Store, perMinute: number, kind: string, ip: string, account: string): Promise<void> {
  await enforceRate(store, `login-ip`, ip, perMinute);
  await enforceRate(store, `login-${kind}`, account.toLowerCase(), perMinute);
}

export const lockDeadline = () => new Date(Date.now() + LOCK_MINUTES * 60_000);
