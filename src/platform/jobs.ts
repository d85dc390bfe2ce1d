import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/**
 * A periodic task of a module (clean-ups, expiries). Every instance runs it on its own timer, so
 * `run` must be safe when several instances run it at once: claim rows with `for update skip
 * locked`, or hold an advisory lock.
 */
export interface BackgroundJob {
  name: string;
  everyMs: number;
  /** also run once when the service starts, before it serves (runAtStart) */
  atStart?: boolean;
  run(): Promise<void>;
}

/**
 * Runs the jobs marked `atStart` once, one after the other, before the app serves. A failure is
 * logged, not thrown: such a job prepares ahead of need (partitions: their default partition takes
 * the rows meanwhile), and its hourly run tries again.
 */
export async function runAtStart(app: FastifyInstance, jobs: BackgroundJob[]): Promise<void> {
  for (const job of jobs.filter((j) => j.atStart)) {
    try {
      await job.run();
    } catch (err) {
      app.log.warn({ err, job: job.name }, 'background job failed at start');
    }
  }
}

/**
 * Each run's outcome and duration, and the time of the last success: a job that keeps failing only
 * logs a warning per run, which nobody reads; `time() - background_job_last_success_timestamp_seconds`
 * is what an alert watches.
 */
function jobMetrics(registry: Registry) {
  return {
    runs: new Counter({
      name: 'background_job_runs_total',
      help: 'Background job runs by outcome (ok, failed)',
      labelNames: ['job', 'outcome'],
      registers: [registry],
    }),
    seconds: new Histogram({
      name: 'background_job_duration_seconds',
      help: 'Background job run time',
      labelNames: ['job'],
      buckets: [0.01, 0.1, 1, 10, 60, 600],
      registers: [registry],
    }),
    lastSuccess: new Gauge({
      name: 'background_job_last_success_timestamp_seconds',
      help: 'When each background job last ran without failing',
      labelNames: ['job'],
      registers: [registry],
    }),
  };
}

/**
 * Runs each job every `everyMs` on this instance; a run still going when the next is due is not
 * doubled. Failures are logged and counted in `registry`, never thrown. Closing the app stops the
 * timers and waits for runs in progress, so none touches a database that is being closed.
 */
export function scheduleJobs(app: FastifyInstance, jobs: BackgroundJob[], registry?: Registry): void {
  if (jobs.length === 0) return;
  const metrics = registry ? jobMetrics(registry) : null;
  const timers: NodeJS.Timeout[] = [];
  const running = new Map<string, Promise<void>>();
  for (const job of jobs) {
    const tick = () => {
      if (running.has(job.name)) return;
      const started = performance.now();
      const outcome = (result: 'ok' | 'failed') => {
        metrics?.runs.inc({ job: job.name, outcome: result });
        metrics?.seconds.observe({ job: job.name }, (performance.now() - started) / 1000);
        if (result === 'ok') metrics?.lastSuccess.set({ job: job.name }, Date.now() / 1000);
      };
      const run = job
        .run()
        .then(
          () => outcome('ok'),
          (err: unknown) => {
            outcome('failed');
            app.log.warn({ err, job: job.name }, 'background job failed');
          },
        )
        .finally(() => running.delete(job.name));
      running.set(job.name, run);
    };
    const timer = setInterval(tick, job.everyMs);
    timer.unref();
    timers.push(timer);
  }
  app.addHook('onClose', async () => {
    for (const timer of timers) clearInterval(timer);
    await Promise.all(running.values());
  });
}
