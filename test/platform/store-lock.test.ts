import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/platform/store/memory-store.js';
import { takeLock, waitForLock } from '../../src/platform/store/store-lock.js';
import type { Store } from '../../src/platform/store/store.js';

let clock = 1_000_000;
const store = createMemoryStore(1000, () => clock);
let n = 0;
const key = () => `lock:${++n}`;

/** Resolves once a take of `lockKey` was refused on `s` (a waiter is then polling). */
function refusedOnce(s: Store, lockKey: string): Promise<void> {
  const original = s.setIfAbsent;
  return new Promise((resolve) => {
    s.setIfAbsent = async (k, value, ttl) => {
      const set = await original(k, value, ttl);
      if (!set && k === lockKey) {
        s.setIfAbsent = original;
        resolve();
      }
      return set;
    };
  });
}

describe('takeLock', () => {
  it('refuses a held lock and takes it again once released', async () => {
    const k = key();
    const release = await takeLock(store, k, 60);
    expect(release).not.toBeNull();
    expect(await takeLock(store, k, 60)).toBeNull();
    await release!();
    const again = await takeLock(store, k, 60);
    expect(again).not.toBeNull();
    await again!();
  });

  it('leaves alone, when released late, the lock another taker took after it expired', async () => {
    const k = key();
    const first = await takeLock(store, k, 1);
    clock += 1_200;
    const second = await takeLock(store, k, 60);
    expect(second).not.toBeNull();
    await first!();
    expect(await takeLock(store, k, 60)).toBeNull();
    await second!();
    expect(await store.get(k)).toBeNull();
  });

  it('releases without rejecting when the store fails, leaving the lock to expire', async () => {
    const k = key();
    const failing: Store = {
      ...createMemoryStore(10, () => clock),
      delIfValue: () => Promise.reject(new Error('store down')),
    };
    const release = await takeLock(failing, k, 1);
    await expect(release!()).resolves.toBeUndefined();
    expect(await takeLock(failing, k, 1)).toBeNull();
    clock += 1_200;
    expect(await takeLock(failing, k, 1)).not.toBeNull();
  });
});

describe('waitForLock', () => {
  it('takes a free lock at once', async () => {
    const release = await waitForLock(store, key(), 60, { waitMs: 0, pollMs: 10 });
    expect(release).not.toBeNull();
    await release!();
  });

  it('takes the lock once its holder releases it within the bound', async () => {
    const k = key();
    const holder = await takeLock(store, k, 60);
    const polled = refusedOnce(store, k);
    const waiting = waitForLock(store, k, 60, { waitMs: 10_000, pollMs: 5 });
    await polled;
    await holder!();
    const release = await waiting;
    expect(release).not.toBeNull();
    expect(await takeLock(store, k, 60)).toBeNull();
    await release!();
  });

  it('gives up when the lock is still held at the end of the bound', async () => {
    const k = key();
    const holder = await takeLock(store, k, 60);
    const started = performance.now();
    expect(await waitForLock(store, k, 60, { waitMs: 60, pollMs: 10 })).toBeNull();
    expect(performance.now() - started).toBeGreaterThanOrEqual(59);
    await holder!();
  });
});
