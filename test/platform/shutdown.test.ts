import { describe, expect, it } from 'vitest';
import { forcedExitAfterMs, settledWithin } from '../../src/platform/shutdown.js';

const never = new Promise<void>(() => {});
const after = (ms: number, fail = false) =>
  new Promise<void>((resolve, reject) =>
    setTimeout(() => (fail ? reject(new Error('closing failed')) : resolve()), ms),
  );

describe('settledWithin (bounded closing at shutdown)', () => {
  it('answers true for a close that finishes in time, false for one that never does', async () => {
    expect(await settledWithin(after(5), 200)).toBe(true);
    const t0 = performance.now();
    expect(await settledWithin(never, 50)).toBe(false);
    expect(performance.now() - t0).toBeLessThan(1_000);
  });

  it('throws a failure that comes in time, and swallows one that comes after the wait', async () => {
    await expect(settledWithin(after(5, true), 200)).rejects.toThrow('closing failed');
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      expect(await settledWithin(after(60, true), 10)).toBe(false);
      await new Promise((r) => setTimeout(r, 150));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
  });
});

describe('forcedExitAfterMs', () => {
  it('leaves a request room for its database bound and the bounded close, never less than 20 s after the delay', () => {
    // defaults: connect 5 s + statement 30 s + the client's 1 s grace, then the 2 s close and 1 s
    expect(
      forcedExitAfterMs({ shutdownDelayMs: 0, databaseConnectTimeoutMs: 5_000, databaseQueryTimeoutMs: 30_000 }),
    ).toBe(39_000);
    expect(
      forcedExitAfterMs({ shutdownDelayMs: 10_000, databaseConnectTimeoutMs: 5_000, databaseQueryTimeoutMs: 30_000 }),
    ).toBe(49_000);
    expect(
      forcedExitAfterMs({ shutdownDelayMs: 0, databaseConnectTimeoutMs: 1_000, databaseQueryTimeoutMs: 1_500 }),
    ).toBe(20_000);
    // no statement bound: nothing to wait for beyond the floor
    expect(
      forcedExitAfterMs({ shutdownDelayMs: 1_500, databaseConnectTimeoutMs: 5_000, databaseQueryTimeoutMs: 0 }),
    ).toBe(21_500);
  });
});
