import { execFile, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openDatabase } from '../../src/platform/db/database.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { adminUrl, TEST_TZ } from '../helpers/test-env.js';
import { freePort } from '../helpers/free-port.js';

const PG_URL = process.env.DATABASE_URL || null;
const run = promisify(execFile);
const MAX_LAG_MS = 1_500;
const CHECK_MS = 100;

/** A server binary as the postgres OS user when run as root (initdb and postgres refuse root). */
async function asPostgres(bin: string, args: string[]): Promise<string> {
  const asRoot = process.getuid?.() === 0;
  const { stdout } = await run(asRoot ? 'runuser' : bin, asRoot ? ['-u', 'postgres', '--', bin, ...args] : args, {
    timeout: 60_000,
  });
  return stdout;
}

/** `from`'s dump restored into `to` (the migrated and seeded schema, on a server of the test's own). */
async function copyDatabase(from: string, to: string, bindir: string): Promise<void> {
  const dump = spawn(path.join(bindir, 'pg_dump'), ['--no-owner', '--no-privileges', '-d', from]);
  const restore = spawn(path.join(bindir, 'psql'), ['-q', '-v', 'ON_ERROR_STOP=1', '-d', to], {
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  dump.stdout.pipe(restore.stdin);
  let errors = '';
  dump.stderr.on('data', (d) => (errors += String(d)));
  restore.stderr!.on('data', (d) => (errors += String(d)));
  const exit = (p: ReturnType<typeof spawn>) => new Promise<number | null>((r) => p.on('close', r));
  const [a, b] = await Promise.all([exit(dump), exit(restore)]);
  if (a !== 0 || b !== 0) throw new Error(`copying the test database failed: ${errors}`);
}

/** One scrape of /metrics, as name{labels} → value. */
async function metrics(t: TestApp): Promise<Map<string, number>> {
  const res = await t.app.inject({ method: 'GET', url: '/metrics' });
  const out = new Map<string, number>();
  for (const line of res.body.split('\n')) {
    if (!line.startsWith('db_replica')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

const REPLICA_READS = 'db_replica_route_reads_total{target="replica"}';
const PRIMARY_READS = 'db_replica_route_reads_total{target="primary"}';
const skips = (reason: string) => `db_replica_skips_total{reason="${reason}"}`;

async function until(what: string, ok: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const t0 = Date.now();
  while (!(await ok())) {
    if (Date.now() - t0 > ms) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// A primary and a streaming replica of the test's own (the CI server refuses replication
// connections): initdb, pg_basebackup -R and a second postmaster, as PostgreSQL's documentation
// sets one up (docs/operations.md, "Read replica"); torn down in afterAll whatever happened.
describe.skipIf(!PG_URL)('reads on a streaming replica (skipped unless DATABASE_URL is set)', () => {
  let work: string;
  let bindir: string;
  let primaryPort: number;
  let replicaPort: number;
  let primaryUrl: string;
  let replicaUrl: string;
  let t: TestApp;
  let database: ReturnType<typeof openDatabase> | null = null;
  let primaryAdmin: pg.Client;
  let replicaAdmin: pg.Client | null = null;
  const started: string[] = [];

  const pgCtl = (dir: string, ...args: string[]) => asPostgres(path.join(bindir, 'pg_ctl'), ['-D', dir, ...args]);
  const startServer = async (dir: string, port: number) => {
    await pgCtl(
      dir,
      '-w',
      '-l',
      path.join(work, `${path.basename(dir)}.log`),
      '-o',
      `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${work} -c fsync=off -c full_page_writes=off`,
      'start',
    );
    if (!started.includes(dir)) started.push(dir);
  };
  const replicaDir = () => path.join(work, 'replica');

  beforeAll(async () => {
    bindir = (await run('pg_config', ['--bindir'])).stdout.trim();
    // Named by the run, so CI's cleanup stops servers a killed test process left (.ci/run).
    work = mkdtempSync(path.join(os.tmpdir(), `tc-replica-${inject('runId')}-`));
    if (process.getuid?.() === 0) {
      const { stdout } = await run('id', ['-u', 'postgres']);
      const { stdout: gid } = await run('id', ['-g', 'postgres']);
      chownSync(work, Number(stdout.trim()), Number(gid.trim()));
    }
    primaryPort = await freePort();
    replicaPort = await freePort();
    const primaryDir = path.join(work, 'primary');
    await asPostgres(path.join(bindir, 'initdb'), [
      '-D',
      primaryDir,
      '-U',
      'postgres',
      '--auth=trust',
      '-E',
      'UTF8',
      '-N',
    ]);
    writeFileSync(path.join(work, 'wal.conf'), 'wal_level = replica\nmax_wal_senders = 4\nhot_standby = on\n');
    await asPostgres('/bin/sh', ['-c', `cat ${work}/wal.conf >> ${primaryDir}/postgresql.conf`]);
    await startServer(primaryDir, primaryPort);
    primaryUrl = `postgres://postgres@127.0.0.1:${primaryPort}/tc`;
    replicaUrl = `postgres://postgres@127.0.0.1:${replicaPort}/tc`;
    primaryAdmin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${primaryPort}/postgres` });
    await primaryAdmin.connect();
    await primaryAdmin.query('create database tc');

    // The migrated and seeded test template, through a copy of this run's own (a dump's connection
    // to the template itself would hold off other files' copies of it).
    const copy = `tc_t_${inject('runId')}_${randomBytes(4).toString('hex')}`;
    const ci = new pg.Client({ connectionString: PG_URL! });
    await ci.connect();
    try {
      await ci.query(`create database ${copy} template ${inject('pgTemplate')}`);
      await copyDatabase(adminUrl(PG_URL!, copy), primaryUrl, bindir);
    } finally {
      await ci.query(`drop database if exists ${copy} with (force)`);
      await ci.end();
    }

    await asPostgres(path.join(bindir, 'pg_basebackup'), [
      '-D',
      replicaDir(),
      '-h',
      '127.0.0.1',
      '-p',
      String(primaryPort),
      '-U',
      'postgres',
      '-R',
      '-X',
      'stream',
      '-c',
      'fast',
    ]);
    await startServer(replicaDir(), replicaPort);

    const opened = openDatabase({
      databaseUrl: primaryUrl,
      dataDir: work,
      tz: TEST_TZ,
      poolMax: 4,
      connectTimeoutMs: 1_000,
      queryTimeoutMs: 10_000,
      replica: { url: replicaUrl, poolMax: 2, maxLagMs: MAX_LAG_MS, checkEveryMs: CHECK_MS },
    });
    database = opened;
    t = await createTestApp(
      { DATABASE_URL: primaryUrl, DATABASE_READ_URL: replicaUrl },
      { db: { database: opened, db: opened.db, close: () => opened.close() } },
    );
    replicaAdmin = new pg.Client({ connectionString: replicaUrl });
    await replicaAdmin.connect();
    await until('the replica in use', async () => t.database.replica!.lag.usable);
  });

  afterAll(async () => {
    await replicaAdmin?.end().catch(() => {});
    await primaryAdmin?.end().catch(() => {});
    await t?.close().catch(() => {});
    await database?.close().catch(() => {});
    for (const dir of started.reverse()) await pgCtl(dir, '-m', 'immediate', 'stop').catch(() => {});
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const roles = async (token: string, name: string) => {
    const res = await t.post('/manage-api/system/role/queryRolePage', { name, pageSize: 50 }, token);
    expect(res.body.errcode, res.body.errmsg).toBe(0);
    return (res.body.data.list as Array<{ name: string }>).filter((r) => r.name === name).length;
  };
  const addRole = async (token: string, name: string) => {
    const res = await t.post('/manage-api/system/role/addRole', { name, permissions: [] }, token);
    expect(res.body.errcode, res.body.errmsg).toBe(0);
  };
  const replayPaused = async (paused: boolean) => {
    await replicaAdmin!.query(paused ? 'select pg_wal_replay_pause()' : 'select pg_wal_replay_resume()');
  };

  it('pages are read on the replica; the writing session reads its own write from the primary', async () => {
    const writer = (await t.loginStaff()).accessToken;
    const reader = (await t.loginStaff()).accessToken;
    const before = await metrics(t);
    await replayPaused(true);
    try {
      const name = `replica-${randomBytes(3).toString('hex')}`;
      await addRole(writer, name);
      // Within the lag bound the replica is still used: the other session does not see the role yet…
      expect(await roles(reader, name)).toBe(0);
      // …the writing session does, on every instance: its mark is in the shared store.
      expect(await roles(writer, name)).toBe(1);
      const during = await metrics(t);
      expect(during.get(REPLICA_READS)!).toBeGreaterThan(before.get(REPLICA_READS) ?? 0);
      expect(during.get(skips('recent-write'))!).toBeGreaterThan(before.get(skips('recent-write')) ?? 0);

      // Over the bound (replay still paused, the primary moved on): skipped, and the read is fresh.
      await until('the replica skipped for lag', async () => t.database.replica!.lag.state === 'lag');
      expect(await roles(reader, name)).toBe(1);
      const lagging = await metrics(t);
      expect(lagging.get(skips('lag'))!).toBeGreaterThan(during.get(skips('lag')) ?? 0);
      expect(lagging.get('db_replica_usable')).toBe(0);
      expect(lagging.get('db_replica_lag_seconds')!).toBeGreaterThan(MAX_LAG_MS / 1000);
    } finally {
      await replayPaused(false);
    }
    // Replayed: used again, and now the other session sees the role there.
    await until('the replica back in use', async () => t.database.replica!.lag.usable);
    const back = await metrics(t);
    const name2 = `replica-${randomBytes(3).toString('hex')}`;
    expect(await roles(reader, name2)).toBe(0);
    expect((await metrics(t)).get(REPLICA_READS)!).toBeGreaterThan(back.get(REPLICA_READS)!);
  });

  it('statistics and exports are read on the replica; writes never are', async () => {
    const token = (await t.loginStaff()).accessToken;
    const before = (await metrics(t)).get(REPLICA_READS)!;
    const stat = await t.post('/manage-api/statistics/statCardIssue', {}, token);
    expect(stat.body.errcode, stat.body.errmsg).toBe(0);
    const afterStat = (await metrics(t)).get(REPLICA_READS)!;
    expect(afterStat).toBeGreaterThan(before);
    const exported = await t.app.inject({
      method: 'GET',
      url: '/manage-api/statistics/exportStatCardIssue',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(exported.statusCode).toBe(200);
    expect(exported.headers['content-type']).toMatch(/spreadsheetml/);
    expect((await metrics(t)).get(REPLICA_READS)!).toBeGreaterThan(afterStat);
    // Writes while the replica is in use land: one sent there would fail (a standby refuses writes,
    // 25006), and so would the request.
    expect(t.database.replica!.lag.usable).toBe(true);
    for (let i = 0; i < 3; i += 1) await addRole(token, `w-${randomBytes(3).toString('hex')}`);
  });

  it('a stopped replica: reads answer from the primary and are counted; started again, it is used again', async () => {
    const token = (await t.loginStaff()).accessToken;
    await replicaAdmin!.end();
    replicaAdmin = null;
    await pgCtl(replicaDir(), '-m', 'immediate', 'stop');
    const before = await metrics(t);
    expect(await roles(token, 'nobody')).toBe(0);
    await until('the replica found unreachable', async () => t.database.replica!.lag.state === 'unreachable');
    expect(await roles(token, 'nobody')).toBe(0);
    const down = await metrics(t);
    expect(down.get(skips('unreachable'))!).toBeGreaterThan(before.get(skips('unreachable')) ?? 0);
    expect(down.get(PRIMARY_READS)!).toBeGreaterThan(before.get(PRIMARY_READS)!);
    expect(down.get('db_replica_lag_seconds')).toBe(-1);
    // /readyz answers from the primary
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);

    await startServer(replicaDir(), replicaPort);
    await until('the replica back in use', async () => t.database.replica!.lag.usable);
    const back = (await metrics(t)).get(REPLICA_READS)!;
    expect(await roles(token, 'nobody')).toBe(0);
    expect((await metrics(t)).get(REPLICA_READS)!).toBeGreaterThan(back);
  });
});
