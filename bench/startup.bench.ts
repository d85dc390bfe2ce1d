/**
 * Start-up time of `npm start` on a persisted data directory (embedded PGlite and in-process store),
 * from spawn to the first successful GET /readyz, against a bare `node -e` HTTP server started the same
 * way in the same run. Prints the median of several starts and the ratio. No assertions on time.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../test/helpers/free-port.js';
import { report } from './report.js';

const STARTS = Number(process.env.BENCH_STARTS ?? 3);
const repoRoot = path.resolve(import.meta.dirname, '..');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Spawns `command` in a process group of its own and answers the ms until `url` first answers 200. */
async function timeToFirstAnswer(
  command: string,
  args: string[],
  url: string,
  env: NodeJS.ProcessEnv,
): Promise<{ ms: number; child: ChildProcess; output: () => string }> {
  const started = performance.now();
  const child = spawn(command, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${command} ${args.join(' ')} exited with ${child.exitCode}:\n${out}`);
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status === 200) return { ms: performance.now() - started, child, output: () => out };
    } catch {
      // not listening yet
    }
    if (performance.now() - started > 120_000) throw new Error(`no answer from ${url} in 2 minutes:\n${out}`);
    await sleep(5);
  }
}

/** SIGTERM to the whole group (npm and the node it started), then waits for the group leader. */
async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((r) => (child.exitCode !== null ? r() : child.once('exit', () => r())));
  process.kill(-child.pid!, 'SIGTERM');
  await exited;
  // the service itself may outlive npm by a moment while it closes the database
  for (let i = 0; i < 200; i++) {
    try {
      process.kill(-child.pid!, 0);
    } catch {
      return;
    }
    await sleep(25);
  }
  process.kill(-child.pid!, 'SIGKILL');
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tc-bench-start-'));
const port = await freePort();
const serviceEnv: NodeJS.ProcessEnv = {
  ...process.env,
  DATA_DIR: dataDir,
  PORT: String(port),
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  ADMIN_PASSWORD: 'Bench@Startup2026',
  // the embedded default: nothing else installed
  DATABASE_URL: '',
  REDIS_URL: '',
};
const readyz = `http://127.0.0.1:${port}/readyz`;

try {
  const first = await timeToFirstAnswer('npm', ['start'], readyz, serviceEnv);
  await stop(first.child);
  console.log(`start-up: first start (create, migrate, seed ${dataDir}): ${first.ms.toFixed(0)} ms`);
  report({
    goal: 'start to ready, fresh data directory',
    value: first.ms,
    unit: 'ms',
    target: '≤ 10,000 ms',
    met: first.ms <= 10_000,
    database: 'pglite',
  });

  const starts: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const run = await timeToFirstAnswer('npm', ['start'], readyz, serviceEnv);
    starts.push(run.ms);
    await stop(run.child);
  }

  const basePort = await freePort();
  const baseline: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const run = await timeToFirstAnswer(
      process.execPath,
      ['-e', `require('http').createServer((q,s)=>s.end('ok')).listen(${basePort}, '127.0.0.1')`],
      `http://127.0.0.1:${basePort}/`,
      process.env,
    );
    baseline.push(run.ms);
    await stop(run.child);
  }

  const m = median(starts);
  const b = median(baseline);
  const fmt = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
  console.log(`  npm start → /readyz 200, persisted data dir: median ${m.toFixed(0)} ms   (runs: ${fmt(starts)})`);
  console.log(`  bare node -e http server → first 200:         median ${b.toFixed(0)} ms   (runs: ${fmt(baseline)})`);
  console.log(`  ratio service/bare: ${(m / b).toFixed(1)}×`);
  report({
    goal: 'start to ready, existing data directory',
    value: m,
    unit: 'ms',
    baseline: { name: 'bare node server', value: b },
    ratio: m / b,
    target: '≤ 3,000 ms',
    met: m <= 3000,
    database: 'pglite',
  });
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
