import Fastify from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { scheduleJobs } from '../../src/platform/jobs.js';

describe('module jobs (platform/jobs.ts)', () => {
  afterEach(() => vi.useRealTimers());

  it('runs each job on its interval, never twice at once, logs failures and stops (waiting for a run) on close', async () => {
    vi.useFakeTimers();
    const app = Fastify({ logger: false });
    const warn = vi.spyOn(app.log, 'warn');
    let runs = 0;
    let release: () => void = () => {};
    scheduleJobs(app, [
      { name: 'slow', everyMs: 1000, run: () => new Promise<void>((r) => { runs++; release = r; }) },
      { name: 'failing', everyMs: 1000, run: async () => { throw new Error('boom'); } },
    ]);
    await vi.advanceTimersByTimeAsync(3500);
    expect(runs).toBe(1); // still running: the later ticks were skipped
    expect(warn).toHaveBeenCalledTimes(3);
    expect(warn.mock.calls[0][1]).toBe('background job failed');
    release();
    await vi.advanceTimersByTimeAsync(1000);
    expect(runs).toBe(2);
    let closed = false;
    const closing = app.close().then(() => (closed = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(closed).toBe(false); // waits for the run in progress
    release();
    await closing;
    await vi.advanceTimersByTimeAsync(5000);
    expect(runs).toBe(2);
  });
});
