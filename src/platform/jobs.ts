import type { FastifyInstance } from 'fastify';

/**
 * A periodic task of a module (clean-ups, expiries). Every instance runs it on its own timer, so
 * `run` must be safe when several instances run it at once: claim rows with `for update skip
 * locked`, or hold an advisory lock.
 */
export interface BackgroundJob {
  name: string;
  everyMs: number;
  run(): Promise<void>;
}

/**
 * Runs each job every `everyMs` on this instance; a run still going when the next is due is not
 * doubled. Failures are logged, never thrown. Closing the app stops the timers and waits for runs
 * in progress, so none touches a database that is being closed.
 */
export function scheduleJobs(app: FastifyInstance, jobs: BackgroundJob[]): void {
  if (jobs.length === 0) return;
  const timers: NodeJS.Timeout[] = [];
  const running = new Map<string, Promise<void>>();
  for (const job of jobs) {
    const tick = () => {
      if (running.has(job.name)) return;
      const run = job
        .run()
        .catch((err: unknown) => app.log.warn({ err, job: job.name }, 'background job failed'))
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
