import Fastify from 'fastify';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runAtStart, scheduleJobs } from '../../src/platform/jobs.js';

describe('module jobs (platform/jobs.ts)', () => {
  afterEach(() => vi.useRealTimers());

  it('runs each job on its interval, never twice at once, logs failures and stops (waiting for a run) on close', async () => {
    vi.useFakeTimers();
    const app = Fastify({ logger: false });
    const warn = vi.spyOn(app.log, 'warn');
    let runs = 0;
    let release: () => void = () => {};
    scheduleJobs(app, [
      {
        name: 'slow',
        everyMs: 1000,
        run: () =>
          new Promise<void>((r) => {
            runs++;
            release = r;
          }),
      },
      {
        name: 'failing',
        everyMs: 1000,
        run: async () => {
          throw new Error('boom');
        },
      },
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

  it('counts each run by outcome, times it and keeps the time of the last success in the registry', async () => {
    vi.useFakeTimers({ now: new Date('2026-11-26T12:00:00Z') });
    const app = Fastify({ logger: false });
    const registry = new Registry();
    let fail = false;
    scheduleJobs(
      app,
      [
        {
          name: 'tidy',
          everyMs: 1000,
          run: async () => {
            if (fail) throw new Error('boom');
          },
        },
      ],
      registry,
    );
    await vi.advanceTimersByTimeAsync(2000);
    fail = true;
    await vi.advanceTimersByTimeAsync(3000);
    const text = await registry.metrics();
    expect(text).toContain('background_job_runs_total{job="tidy",outcome="ok"} 2');
    expect(text).toContain('background_job_runs_total{job="tidy",outcome="failed"} 3');
    expect(text).toContain('background_job_duration_seconds_count{job="tidy"} 5');
    // the second run (12:00:02) was the last to succeed
    expect(text).toContain(
      `background_job_last_success_timestamp_seconds{job="tidy"} ${Date.parse('2026-11-26T12:00:02Z') / 1000}`,
    );
    await app.close();
  });

  it('runs the jobs marked atStart once, in order, logging a failure without stopping the others', async () => {
    const app = Fastify({ logger: false });
    const warn = vi.spyOn(app.log, 'warn');
    const ran: string[] = [];
    const job = (name: string, atStart: boolean, fail = false) => ({
      name,
      everyMs: 1000,
      atStart,
      run: async () => {
        ran.push(name);
        if (fail) throw new Error('boom');
      },
    });
    await runAtStart(app, [job('a', true, true), job('hourly', false), job('b', true)]);
    expect(ran).toEqual(['a', 'b']);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][1]).toBe('background job failed at start');
    await app.close();
  });
});
