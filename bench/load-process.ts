import { spawn } from 'node:child_process';
import path from 'node:path';

/**
 * Runs a load script of bench/ (http-load.ts, checkin-load.ts) in a process of its own, as clients
 * are other machines, with its job as JSON in argv[2]; answers the JSON it prints.
 */
export function runLoadProcess<T>(script: string, job: unknown): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(import.meta.dirname, script), JSON.stringify(job)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let text = '';
    child.stdout.on('data', (c: Buffer) => (text += c.toString()));
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(text) as T) : reject(new Error(`${script} exited ${code}`)),
    );
  });
}
