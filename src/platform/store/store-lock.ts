import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Store } from './store.js';

/**
 * Gives a lock back. It deletes the key only while it still holds this taker's token, so a lock that
 * expired and was taken by another request meanwhile stays theirs. It never rejects: a release that
 * fails (the store unreachable) leaves the lock to expire.
 */
export type ReleaseLock = () => Promise<void>;

/** How long a taker waits for a held lock, and how often it tries again meanwhile. */
export interface LockWait {
  waitMs: number;
  pollMs: number;
}

/**
 * Takes the lock `key` for `ttlS` seconds: its release, or null when someone holds it. A lock in the
 * store is shared by every instance on Redis; the ttl bounds how long a crashed holder blocks it.
 */
export async function takeLock(store: Store, key: string, ttlS: number): Promise<ReleaseLock | null> {
  const token = randomBytes(12).toString('base64url');
  if (!(await store.setIfAbsent(key, token, ttlS))) return null;
  return () =>
    store.delIfValue(key, token).then(
      () => undefined,
      () => undefined,
    );
}

/**
 * takeLock, trying again every `pollMs` while the lock is held, for up to `waitMs`: null when it is
 * still held then. The store keeps no queue of waiters, so whoever tries first after a release takes it.
 */
export async function waitForLock(
  store: Store,
  key: string,
  ttlS: number,
  wait: LockWait,
): Promise<ReleaseLock | null> {
  const deadline = performance.now() + wait.waitMs;
  for (;;) {
    const release = await takeLock(store, key, ttlS);
    if (release) return release;
    const left = deadline - performance.now();
    if (left <= 0) return null;
    await sleep(Math.min(wait.pollMs, left));
  }
}
