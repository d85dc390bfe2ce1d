import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/platform/db/database.js';
import { lockDataDir } from '../../src/platform/db/data-dir-lock.js';

const TZ = 'Asia/Shanghai';

// The embedded database's own machinery: the PGlite suite runs it.
describe.skipIf(process.env.DATABASE_URL)('one process at a time on an embedded data directory', () => {
  let root = '';
  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), 'tc-lock-'));
  });
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('refuses a second database on a data directory in use, and lets it start once the first has closed', async () => {
    const dataDir = path.join(root, 'shared');
    const first = openDatabase({ databaseUrl: null, dataDir, tz: TZ });
    await sql`create table kept (n int)`.execute(first.db);
    await sql`insert into kept values (7)`.execute(first.db);
    const second = openDatabase({ databaseUrl: null, dataDir, tz: TZ, lockWaitMs: 0 });
    await expect(sql`select 1`.execute(second.db)).rejects.toThrow(/is in use by another running instance/);
    await second.close(); // closing a database that never started is not an error
    await sql`insert into kept values (8)`.execute(first.db); // the first goes on unharmed
    await first.close();
    expect(existsSync(path.join(dataDir, 'pglite.lock'))).toBe(false);

    const third = openDatabase({ databaseUrl: null, dataDir, tz: TZ, lockWaitMs: 0 });
    try {
      expect((await sql<{ n: number }>`select n from kept order by n`.execute(third.db)).rows.map((r) => r.n)).toEqual([
        7, 8,
      ]);
    } finally {
      await third.close();
    }
  });

  // The wait itself (a start after kill -9 finds the lock fresh and waits for it to go stale) is the
  // PGlite restart of test/cluster/faults.process.test.ts.
  it('takes over a lock its holder left behind once it has gone stale, and refuses a fresh one', async () => {
    const dir = path.join(root, 'crashed', 'pglite');
    mkdirSync(`${dir}.lock`, { recursive: true }); // what a process killed while holding it leaves
    const long = new Date(Date.now() - 60_000);
    utimesSync(`${dir}.lock`, long, long);
    const release = await lockDataDir(dir, 0);
    await release();

    mkdirSync(`${dir}.lock`); // a fresh one: the holder may be alive
    await expect(lockDataDir(dir, 0)).rejects.toThrow(/is in use/);
  });
});
