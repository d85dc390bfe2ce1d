import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** Runs in the child: PGlite makes the data directory (its initdb) and closes it. */
const CHILD_SCRIPT = `
const { PGlite } = await import(process.env.TC_PGLITE_MODULE);
const pg = new PGlite({ dataDir: process.env.TC_PGLITE_DIR });
await pg.waitReady;
await pg.close();
`;

/** Where PGlite's module is, for code that loads it outside this process's module graph (a child, a thread). */
export function pgliteModuleUrl(): string {
  try {
    return import.meta.resolve('@electric-sql/pglite');
  } catch {
    // Where import.meta.resolve is missing (some test loaders), resolve as CommonJS does.
    return pathToFileURL(createRequire(import.meta.url).resolve('@electric-sql/pglite')).href;
  }
}

/**
 * Makes an embedded data directory that does not exist yet, in a short-lived child process. PGlite's
 * initdb runs a second PostgreSQL instance beside the first and peaks near 900 MB; in the service's
 * own process that memory stayed resident for good (538 MB idle after a fresh start against 376 MB
 * after a start on an existing directory, measured). The directory is made beside its place and
 * renamed into it once complete, so a start killed during initdb leaves no half-made database behind.
 */
export async function ensurePgliteDataDir(dataDir: string): Promise<void> {
  if (existsSync(path.join(dataDir, 'PG_VERSION'))) return;
  removeAbandonedStaging(dataDir);
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) {
    throw new Error(
      `${dataDir} holds files but no database (no PG_VERSION); move them away or point DATA_DIR elsewhere`,
    );
  }
  const staging = `${dataDir}.init-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    await runChild(staging);
    if (!existsSync(path.join(staging, 'PG_VERSION')))
      throw new Error('the embedded database initialisation made no data directory');
    rmSync(dataDir, { recursive: true, force: true }); // an empty directory, checked above
    renameSync(staging, dataDir);
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw err;
  }
}

/** Staging directories of earlier starts that were killed during initdb (their process is gone). */
function removeAbandonedStaging(dataDir: string): void {
  const parent = path.dirname(dataDir);
  const prefix = `${path.basename(dataDir)}.init-`;
  if (!existsSync(parent)) return;
  for (const name of readdirSync(parent)) {
    const pid = name.startsWith(prefix) ? Number(name.slice(prefix.length)) : NaN;
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && !isAlive(pid))
      rmSync(path.join(parent, name), { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function runChild(dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD_SCRIPT], {
      env: { ...process.env, TC_PGLITE_MODULE: pgliteModuleUrl(), TC_PGLITE_DIR: dir },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      if (stderr.length < 4000) stderr += text;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve();
      else
        reject(
          new Error(
            `the embedded database initialisation failed (${signal ?? `exit ${code}`}): ${stderr.trim().slice(-1000)}`,
          ),
        );
    });
  });
}
