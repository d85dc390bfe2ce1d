/**
 * BENCH_CPU_PROF=DIR: a V8 CPU profile of this process for each measured part of a bench, written to
 * DIR/<name>.cpuprofile (open it in Chrome's DevTools or any cpuprofile viewer). Where the bench serves
 * the app in its own process, the profile is the service's; load generated from a worker thread or
 * another process is not in it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';

const PROFILE_DIR = process.env.BENCH_CPU_PROF;

export async function profiled<T>(name: string, work: () => Promise<T>): Promise<T> {
  if (!PROFILE_DIR) return work();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(PROFILE_DIR, { recursive: true });
    writeFileSync(path.join(PROFILE_DIR, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}
