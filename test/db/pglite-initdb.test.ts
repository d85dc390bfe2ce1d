import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensurePgliteDataDir } from '../../src/platform/db/pglite-initdb.js';

// The successful initialisation (a child process running PGlite's initdb, then the rename) is what
// every `npm start` on a fresh directory does: test/platform/npm-start.process.test.ts checks it there.
// The embedded database's own machinery: the PGlite suite runs it; the PostgreSQL + Redis suite would
// only run it again.
describe.skipIf(process.env.DATABASE_URL)('the embedded data directory made in a child process', () => {
  let root = '';
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'tc-initdb-'));
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('leaves a directory that holds a database alone', async () => {
    const dir = path.join(root, 'pglite');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'PG_VERSION'), '17\n');
    await ensurePgliteDataDir(dir);
    expect(readdirSync(dir)).toEqual(['PG_VERSION']);
    expect(readdirSync(root)).toEqual(['pglite']); // no staging directory: no initdb was started
  });

  it('refuses a directory holding other files, and touches none of them', async () => {
    const dir = path.join(root, 'pglite');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'notes.txt'), 'mine');
    await expect(ensurePgliteDataDir(dir)).rejects.toThrow(/holds files but no database/);
    expect(readdirSync(dir)).toEqual(['notes.txt']);
    expect(readdirSync(root)).toEqual(['pglite']);
  });

  it('removes the staging directory of an earlier start killed during initdb, and no other', async () => {
    const dir = path.join(root, 'pglite');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'notes.txt'), 'mine'); // refused below, after the clean-up
    const dead = spawnSync(process.execPath, ['-e', '']).pid!; // a process that has exited
    mkdirSync(path.join(root, `pglite.init-${dead}`));
    mkdirSync(path.join(root, `pglite.init-${process.ppid}`)); // a living process's
    mkdirSync(path.join(root, 'pglite.init-x'));
    await expect(ensurePgliteDataDir(dir)).rejects.toThrow(/holds files but no database/);
    expect(readdirSync(root).sort()).toEqual(['pglite', `pglite.init-${process.ppid}`, 'pglite.init-x'].sort());
  });

  it('reports a child that fails, and leaves neither a half-made directory nor its staging one', async () => {
    const dir = path.join(root, 'pglite');
    mkdirSync(dir);
    const saved = process.env.NODE_OPTIONS;
    process.env.NODE_OPTIONS = '--no-such-node-option';
    try {
      await expect(ensurePgliteDataDir(dir)).rejects.toThrow(/embedded database initialisation failed \(exit \d+\)/);
    } finally {
      if (saved === undefined) delete process.env.NODE_OPTIONS;
      else process.env.NODE_OPTIONS = saved;
    }
    expect(existsSync(path.join(dir, 'PG_VERSION'))).toBe(false);
    expect(readdirSync(root)).toEqual(['pglite']);
  });
});
