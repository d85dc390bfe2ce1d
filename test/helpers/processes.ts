import { spawn, type ChildProcess } from 'node:child_process';

export interface Started {
  child: ChildProcess;
  port: number;
  /** Everything the process printed so far (stdout and stderr). */
  output: () => string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
}

/** Starts a command with its output captured; its exit is awaited through `exited`. */
export function startProcess(
  command: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; port: number },
): Started {
  const child = spawn(command, args, {
    cwd: opts.cwd,
    env: opts.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, port: opts.port, output: () => out, exited };
}

/** Polls /readyz until it answers 200 (true), the process ends or the time is up (false). */
export async function waitReady(p: Started, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  let ended = false;
  void p.exited.then(() => (ended = true));
  while (Date.now() < until && !ended) {
    try {
      const res = await fetch(`http://127.0.0.1:${p.port}/readyz`);
      if (res.status === 200) return true;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

/** Ends a process group started by startProcess (npm start runs node under sh under npm). */
export async function stopProcess(p: Started): Promise<void> {
  if (p.child.exitCode !== null || p.child.pid === undefined) return;
  try {
    process.kill(-p.child.pid, 'SIGTERM');
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-p.child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }, 10_000);
  await p.exited;
  clearTimeout(timer);
}
