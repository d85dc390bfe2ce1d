import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { loadConfig, type Config } from '../../src/config.js';
import { buildApp } from '../../src/app.js';
import { openDatabase, type Database, type Db } from '../../src/platform/db/database.js';
import { openStore, type Store } from '../../src/platform/store/index.js';
import type { PlatformServices } from '../../src/platform/services.js';
import { testStorePrefix } from './store-prefix.js';
import { adminUrl, TEST_ADMIN, TEST_TZ } from './test-env.js';
import { attachContractCheck } from './contract-check.js';

export interface TestDb {
  database: Database;
  db: Db;
  close(): Promise<void>;
}

/** A fresh database of this test file's own, already migrated and seeded (see global-setup). */
export async function openTestDatabase(): Promise<TestDb> {
  const url = process.env.DATABASE_URL || null;
  if (!url) {
    const database = openDatabase({
      databaseUrl: null,
      dataDir: '.test-cache',
      tz: TEST_TZ,
      inMemory: true,
      loadDataDir: readFileSync(inject('pgliteSnapshot')),
    });
    return { database, db: database.db, close: () => database.close() };
  }
  const name = `tc_t_${inject('runId')}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${name} template ${inject('pgTemplate')}`);
  await admin.end();
  const database = openDatabase({ databaseUrl: adminUrl(url, name), dataDir: '.test-cache', tz: TEST_TZ, poolMax: 5 });
  return {
    database,
    db: database.db,
    close: async () => {
      await database.close();
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export interface CallResult {
  status: number;
  headers: LightMyRequestResponse['headers'];
  body: { errcode: number; errmsg: string; data?: any; [k: string]: unknown };
  raw: LightMyRequestResponse;
}

export interface TestApp {
  app: FastifyInstance;
  config: Config;
  db: Db;
  database: Database;
  store: Store;
  /** POST a JSON body (or GET when method says so) with an optional access token. */
  call(
    method: 'GET' | 'POST',
    url: string,
    opts?: { body?: unknown; token?: string; headers?: Record<string, string> },
  ): Promise<CallResult>;
  post(url: string, body?: unknown, token?: string): Promise<CallResult>;
  /** Logs a staff user in through the captcha, reading the code from the store as a person reads the image. */
  loginStaff(
    username?: string,
    password?: string,
  ): Promise<{ accessToken: string; refreshToken: string; userId: number }>;
  close(): Promise<void>;
}

/** `shared.services` replaces the SMS or face services (a recording SMS sender, a failing face service). */
export async function createTestApp(
  env: Record<string, string> = {},
  shared?: { db?: TestDb; store?: Store; services?: Partial<PlatformServices> },
): Promise<TestApp> {
  const testDb = shared?.db ?? (await openTestDatabase());
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tc-test-'));
  let config: Config;
  let store: Store | undefined;
  let app: FastifyInstance;
  try {
    config = loadConfig({
      DATA_DIR: dataDir,
      TZ: TEST_TZ,
      LOG_LEVEL: 'silent',
      DATABASE_URL: process.env.DATABASE_URL ?? '',
      REDIS_URL: process.env.REDIS_URL ?? '',
      STORE_PREFIX: testStorePrefix('app'),
      LOGIN_RATE_PER_MIN: '1000',
      CAPTCHA_RATE_PER_MIN: '1000',
      ...env,
    });
    store = shared?.store ?? (await openStore(config.redisUrl, config.storePrefix));
    app = await buildApp({ config, database: testDb.database, store, logger: false, services: shared?.services });
    attachContractCheck(app);
    await app.ready();
  } catch (err) {
    // A test that expects the app not to start gets no TestApp to close: nothing of it may outlive it.
    if (!shared?.store) await store?.close();
    if (!shared?.db) await testDb.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }

  const call: TestApp['call'] = async (method, url, opts = {}) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    const res = await app.inject({
      method,
      url,
      headers,
      ...(opts.body !== undefined ? { payload: opts.body as object } : {}),
    });
    let body: CallResult['body'];
    try {
      body = res.json();
    } catch {
      body = { errcode: -1, errmsg: 'not JSON' };
    }
    return { status: res.statusCode, headers: res.headers, body, raw: res };
  };

  const t: TestApp = {
    app,
    config,
    db: testDb.db,
    database: testDb.database,
    store,
    call,
    post: (url, body, token) => call('POST', url, { body: body ?? {}, token }),
    async loginStaff(username = TEST_ADMIN.username, password = TEST_ADMIN.password) {
      const img = await app.inject({ method: 'GET', url: '/manage-api/auth/getRandomCodeImg' });
      const key = String(img.headers['x-captcha-key']);
      const code = await store.get(`captcha:${key}`);
      const res = await call('POST', '/manage-api/auth/login', { body: { username, password, code, uuid: key } });
      if (res.body.errcode !== 0) throw new Error(`login of ${username} failed: ${res.body.errmsg}`);
      return res.body.data;
    },
    async close() {
      await app.close();
      if (!shared?.store) await store.close();
      if (!shared?.db) await testDb.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return t;
}
