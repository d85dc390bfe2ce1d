import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { Migrator } from 'kysely/migration';
import { backupIfDue, embeddedBackupJob, listBackups, takeBackup } from '../../src/platform/backup.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { migrationProvider } from '../../src/db/migrations/index.js';

const HOUR = 60 * 60 * 1000;
const TZ = 'Asia/Shanghai';

const count = async (database: Database) =>
  (
    await sql<{ n: number; top: number | null }>`select count(*)::int as n, max(id)::int as top from t`.execute(
      database.db,
    )
  ).rows[0];

// The embedded database only: on PostgreSQL pg_dump is the backup (docs/operations.md §8).
describe.skipIf(process.env.DATABASE_URL)('backups of the embedded database while it runs', () => {
  let root = '';
  let database: Database;
  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'tc-backup-'));
    database = openDatabase({ databaseUrl: null, dataDir: path.join(root, 'live'), tz: TZ });
    await sql`create table t (id serial primary key, note text not null)`.execute(database.db);
    await sql`insert into t (note) select 'row ' || g from generate_series(1, 500) g`.execute(database.db);
  });
  afterAll(async () => {
    await database?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('copies the database between two statements while writes go on, and the copy starts as a database', async () => {
    const dir = path.join(root, 'backups-writes');
    const before = await count(database);
    // Writes one after another during the backup: each commits, none fails or waits for good.
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        await sql`insert into t (note) values ('during')`.execute(database.db);
        written++;
      }
    })();
    const file = await takeBackup(database, { dir, stagingDir: path.join(root, 'live'), everyMs: HOUR, keep: 7 });
    writing = false;
    await writer;
    const after = await count(database);
    expect(after.n).toBe(before.n + written);
    expect(written).toBeGreaterThan(0);
    expect(readdirSync(dir)).toEqual([path.basename(file)]); // no partial file left
    expect(statSync(file).mode & 0o777).toBe(0o600); // the database's own files are its owner's alone
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(path.join(root, 'live')).sort()).toEqual(['pglite', 'pglite.lock']); // nor a staging directory

    // Restored as docs/operations.md says: unpacked into an empty DATA_DIR/pglite.
    const restoredRoot = path.join(root, 'restored');
    mkdirSync(path.join(restoredRoot, 'pglite'), { recursive: true });
    execFileSync('tar', ['-xzf', file, '-C', path.join(restoredRoot, 'pglite')]);
    const restored = openDatabase({ databaseUrl: null, dataDir: restoredRoot, tz: TZ });
    try {
      const got = await count(restored);
      // Every row committed before the backup, none half-written: ids have no gap up to the last one.
      expect(got.n).toBeGreaterThanOrEqual(before.n);
      expect(got.n).toBeLessThanOrEqual(after.n);
      expect(got.top).toBe(got.n);
      await sql`insert into t (note) values ('after the restore')`.execute(restored.db);
      expect((await count(restored)).n).toBe(got.n + 1);
    } finally {
      await restored.close();
    }
  });

  it('takes one when the newest is older than the interval, and keeps the newest `keep`', async () => {
    const settings = {
      dir: path.join(root, 'backups-due'),
      stagingDir: path.join(root, 'live'),
      everyMs: 24 * HOUR,
      keep: 2,
    };
    const t0 = new Date('2026-11-20T02:00:00Z');
    const first = await backupIfDue(database, settings, t0);
    expect(first).toMatch(/pglite-20261120T020000Z\.tar\.gz$/);
    expect(await backupIfDue(database, settings, new Date(t0.getTime() + 23 * HOUR))).toBeNull();
    const second = await backupIfDue(database, settings, new Date(t0.getTime() + 24 * HOUR));
    const third = await backupIfDue(database, settings, new Date(t0.getTime() + 49 * HOUR));
    expect((await listBackups(settings.dir)).map((b) => b.file)).toEqual([third, second]);
    expect(existsSync(first!)).toBe(false);

    // What a run that died left: removed by the next run once an hour old (a younger one may be a run
    // still going in another process).
    const deadStaging = path.join(settings.stagingDir, '.backup-staging-20261120T000000Z-1');
    const deadPartial = path.join(settings.dir, 'pglite-20261120T000000Z.tar.gz.partial');
    const young = path.join(settings.dir, 'pglite-20261122T000000Z.tar.gz.partial');
    mkdirSync(deadStaging);
    writeFileSync(deadPartial, 'half');
    writeFileSync(young, 'half');
    const at = new Date(t0.getTime() + 73 * HOUR);
    const twoHoursBefore = new Date(at.getTime() - 2 * HOUR);
    utimesSync(deadStaging, twoHoursBefore, twoHoursBefore);
    utimesSync(deadPartial, twoHoursBefore, twoHoursBefore);
    utimesSync(young, at, at);
    await backupIfDue(database, settings, at);
    expect(existsSync(deadStaging)).toBe(false);
    expect(existsSync(deadPartial)).toBe(false);
    expect(existsSync(young)).toBe(true);
  });

  it('leaves nothing that looks like a backup when a run fails', async () => {
    const dir = path.join(root, 'backups-failed');
    const failing: Database = {
      ...database,
      copyDataDir: async (target) => {
        mkdirSync(target);
        throw new Error('disk full');
      },
    };
    await expect(
      takeBackup(failing, { dir, stagingDir: path.join(root, 'live'), everyMs: HOUR, keep: 7 }),
    ).rejects.toThrow('disk full');
    expect(readdirSync(dir)).toEqual([]);
    expect(readdirSync(path.join(root, 'live')).sort()).toEqual(['pglite', 'pglite.lock']);
  });

  it('is scheduled only for a database with a data directory, and not when turned off', async () => {
    const settings = {
      dir: path.join(root, 'unused'),
      stagingDir: path.join(root, 'live'),
      everyMs: 24 * HOUR,
      keep: 7,
    };
    const memory = openDatabase({ databaseUrl: null, dataDir: '.test-cache', tz: TZ, inMemory: true });
    try {
      expect(embeddedBackupJob(memory, settings, () => {})).toBeNull();
    } finally {
      await memory.close();
    }
    expect(embeddedBackupJob(database, { ...settings, everyMs: 0 }, () => {})).toBeNull();
    expect(embeddedBackupJob(database, settings, () => {})?.name).toBe('embedded database backup');
  });

  it('lets an upgrade back the database up before it migrates one that holds an earlier version', async () => {
    const calls: string[][] = [];
    const hook = async (pending: string[]) => void calls.push(pending);
    await migrateToLatest(database.db, hook); // a database without a migration table: nothing to keep
    expect(calls).toEqual([]);
    const names = Object.keys(await migrationProvider.getMigrations());
    const down = await new Migrator({ db: database.db, provider: migrationProvider }).migrateDown();
    expect(down.error).toBeUndefined();
    expect(await migrateToLatest(database.db, hook)).toEqual([names[names.length - 1]]);
    expect(calls).toEqual([[names[names.length - 1]]]);
    expect(await migrateToLatest(database.db, hook)).toEqual([]); // up to date: not called
    expect(calls).toHaveLength(1);
  });
});
