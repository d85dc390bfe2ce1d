/**
 * The real app over a given PostgreSQL database for benches, and platform staff sessions holding given
 * permissions (issued as a login issues them, without the captcha and argon2 round trip).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Db } from '../src/platform/db/database.js';
import type { Store } from '../src/platform/store/store.js';

process.env.TZ ??= 'Asia/Shanghai';
const { loadConfig } = await import('../src/config.js');
const { buildApp } = await import('../src/app.js');
const { openDatabase } = await import('../src/platform/db/database.js');
const { openStore } = await import('../src/platform/store/index.js');
const { TokenService } = await import('../src/platform/auth/tokens.js');
const { ensureRole, insertStaff } = await import('../src/modules/staff/bootstrap.repository.js');
const { loadStaffAccount } = await import('../src/modules/auth/staff.repository.js');
const { UserType } = await import('../src/platform/http/context.js');

/**
 * A new platform staff user holding `permissions` and an access token for it. The session is cached in
 * `store`; a service process with another store rebuilds it from the token row, as after a restart.
 */
export async function issuePlatformToken(db: Db, store: Store, permissions: string[]): Promise<string> {
  return issueStaffToken(db, store, permissions, null);
}

/** As issuePlatformToken, for a merchant's staff user when `merchantId` is given. */
export async function issueStaffToken(
  db: Db,
  store: Store,
  permissions: string[],
  merchantId: number | null,
): Promise<string> {
  const tag = randomBytes(4).toString('hex');
  const roleId = await ensureRole(db, `bench_${tag}`, `bench ${tag}`, permissions);
  const userId = await insertStaff(
    db,
    {
      username: `bench_${tag}`,
      passwordHash: 'x',
      nickname: 'bench',
      userType: merchantId === null ? UserType.PLATFORM : UserType.MERCHANT,
      merchantId,
      shopId: null,
    },
    [roleId],
  );
  const account = (await loadStaffAccount(db, userId))!;
  const tokens = new TokenService(db, store, { accessS: 3600, refreshS: 7200 });
  const issued = await tokens.issue(db, account, 'manage', null);
  await tokens.remember(issued, account, 'manage');
  return issued.accessToken;
}

export async function openBenchApp(databaseUrl: string) {
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'tc-bench-')),
    LOG_LEVEL: 'silent',
    TZ: process.env.TZ!,
  });
  // SCALE_STATEMENT_TIMEOUT_MS bounds every statement as DATABASE_QUERY_TIMEOUT_MS and its report
  // bound do in service, so one operation far past its target cannot hold a bench run for minutes.
  const bound = Number(process.env.SCALE_STATEMENT_TIMEOUT_MS ?? 0);
  const database = openDatabase({
    databaseUrl,
    dataDir: config.dataDir,
    tz: config.tz,
    ...(bound > 0 ? { queryTimeoutMs: bound, reportQueryTimeoutMs: bound } : {}),
  });
  const store = await openStore(null, 'bench:');
  const app = await buildApp({ config, database, store, logger: false });
  await app.ready();

  return {
    app,
    db: database.db,
    platformToken: (permissions: string[]) => issuePlatformToken(database.db, store, permissions),
    merchantToken: (merchantId: number, permissions: string[]) =>
      issueStaffToken(database.db, store, permissions, merchantId),
    async close() {
      await app.close();
      await store.close();
      await database.close();
    },
  };
}

/**
 * A PostgreSQL database holding the demo data set: `reuse` when given (kept afterwards), else a fresh
 * tc_bench_<random> database on `serverUrl`'s server, migrated, seeded with `scale` check rows and
 * dropped by `drop()`.
 */
export async function demoDatabase(
  serverUrl: string,
  scale: number,
  reuse: string | null,
): Promise<{ url: string; drop: () => Promise<void> }> {
  if (reuse) return { url: reuse, drop: async () => {} };
  const { migrateToLatest } = await import('../src/platform/db/migrate.js');
  const { seedReferenceData } = await import('../src/seed/reference.js');
  const { generateDemoData } = await import('../src/seed/demo/index.js');
  const { parseDay } = await import('../src/seed/demo/calendar.js');
  const { name, url, drop } = await scratchDatabase(serverUrl);
  const database = openDatabase({ databaseUrl: url, dataDir: '/tmp', tz: process.env.TZ! });
  try {
    await migrateToLatest(database.db);
    await seedReferenceData(database.db, { adminUsername: 'admin', adminPassword: 'Bench@2026', openApp: null });
    console.log(`seeding ${Math.round(scale).toLocaleString('en-US')} check rows into ${name}…`);
    const result = await generateDemoData(database, { scale, seed: 1, now: parseDay('2026-06-30')!, databaseUrl: url });
    if (result.status !== 'created') throw new Error(result.message);
  } finally {
    await database.close();
  }
  return { url, drop };
}

/** A new, empty tc_bench_<random> database on `serverUrl`'s server, and how to drop it. */
export async function scratchDatabase(
  serverUrl: string,
): Promise<{ name: string; url: string; drop: () => Promise<void>; keep: () => Promise<void> }> {
  const { default: pg } = await import('pg');
  const name = `tc_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const u = new URL(serverUrl);
  u.pathname = '/' + name;
  return {
    name,
    url: u.toString(),
    drop: async () => {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
    /** leaves the database for a look afterwards */
    keep: () => admin.end(),
  };
}

/**
 * The node arguments `npm start` runs the bundle with (package.json "start"), so a bench that spawns
 * the service itself measures the same process.
 */
export function serviceNodeArgs(): string[] {
  return ['--enable-source-maps', `--max-old-space-size=${process.env.NODE_HEAP_MB || 192}`, 'dist/main.mjs'];
}
