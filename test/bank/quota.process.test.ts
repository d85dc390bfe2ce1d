import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { adminUrl } from '../helpers/global-setup.js';
import { freePort, sleep } from '../helpers/platform-fixtures.js';
import { TEST_ADMIN, TEST_TZ } from '../helpers/test-env.js';
import { createBankChannel, createBankUser, newPerson, P, type BankChannel, type BankStaff } from './bank-fixtures.js';
import { checkQuotaRun } from './quota-check.js';

/**
 * The headline rule across real server processes: 200 concurrent activations against a quota of 50,
 * sent to two `node --import tsx src/main.ts` processes that share one PostgreSQL database and one
 * Redis. Only PostgreSQL and Redis can be shared between processes, so without both the test is skipped.
 */

const ATTEMPTS = 200;
const QUOTA = 50;
const BYPASS = '246810';
const shared = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);

interface Service {
  child: ChildProcess;
  base: string;
  exited: Promise<number | null>;
  output: () => string;
}

async function start(env: Record<string, string>): Promise<Service> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tc-bank-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: process.cwd(),
    env: { ...env, DATA_DIR: dataDir, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => {
    rmSync(dataDir, { recursive: true, force: true });
    resolve(code);
  }));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited early (${child.exitCode}):\n${out}`);
    try {
      if ((await fetch(`${base}/readyz`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`service not ready in time:\n${out}`);
    await sleep(100);
  }
  return { child, base, exited, output: () => out };
}

async function post(base: string, url: string, body: unknown, token?: string) {
  const res = await fetch(base + url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return (await res.json()) as { errcode: number; errmsg: string; data?: any };
}

describe.skipIf(!shared)('operator quota across two server processes (skipped unless DATABASE_URL and REDIS_URL are set)', () => {
  let dbName: string;
  let database: Database;
  let bank: BankChannel;
  let teller: BankStaff;
  const services: Service[] = [];

  beforeAll(async () => {
    const url = process.env.DATABASE_URL!;
    dbName = `tc_t_${inject('runId')}_bankquota`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create database ${dbName} template ${inject('pgTemplate')}`);
    await admin.end();
    database = openDatabase({ databaseUrl: adminUrl(url, dbName), dataDir: '.test-cache', tz: TEST_TZ, poolMax: 3 });
    bank = await createBankChannel(database.db, { operators: [{ total: QUOTA, day: ATTEMPTS }], pool: QUOTA + 20 });
    teller = await createBankUser(database.db, { businessId: bank.businessId, operatorRowId: bank.operators[0].id });

    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      HOST: '127.0.0.1',
      TZ: TEST_TZ,
      DATABASE_URL: adminUrl(url, dbName),
      REDIS_URL: process.env.REDIS_URL!,
      // one prefix: both processes read the sessions and SMS codes the other wrote
      STORE_PREFIX: `test:bankquota:${randomBytes(4).toString('hex')}:`,
      SMS_BYPASS_CODE: BYPASS,
      ADMIN_PASSWORD: TEST_ADMIN.password,
      LOG_LEVEL: 'warn',
    };
    services.push(...(await Promise.all([start(env), start(env)])));
  });

  afterAll(async () => {
    for (const s of services) if (s.child.exitCode === null) s.child.kill('SIGTERM');
    await Promise.all(services.map((s) => s.exited));
    await database?.close();
    if (dbName) {
      const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await c.connect();
      await c.query(`drop database if exists ${dbName} with (force)`);
      await c.end();
    }
  });

  it(`lets exactly ${QUOTA} of ${ATTEMPTS} concurrent activations succeed`, async () => {
    const [one, two] = services.map((s) => s.base);
    // The bank login of the real flow: a code texted through one process, the login on the other.
    expect((await post(one, `${P}/sendSmsCode`, { phone: teller.mobile, purpose: 'login' })).errcode).toBe(0);
    const login = await post(two, `${P}/bankLogin`, { mobile: teller.mobile, password: teller.password, verifyCode: BYPASS });
    expect(login.data?.code, JSON.stringify(login)).toBe(200);
    const token: string = login.data.data.accessToken;

    const people = Array.from({ length: ATTEMPTS }, () => newPerson());
    for (let i = 0; i < people.length; i += 20) {
      const sent = await Promise.all(people.slice(i, i + 20).map((p, k) => post(k % 2 ? two : one, `${P}/sendSmsCode`, { phone: p.phone, purpose: 'activate' }, token)));
      for (const s of sent) expect(s.errcode, s.errmsg).toBe(0);
    }
    const started = performance.now();
    const answers = await Promise.all(people.map((p, i) => post(i % 2 ? two : one, `${P}/activateBankCard`, { ...p, verifyCode: BYPASS }, token)));
    console.info(`[bank quota] ${ATTEMPTS} concurrent activations across two processes answered in ${Math.round(performance.now() - started)} ms`);
    const outcome = answers.map((a) => (a.errcode === 0 ? a.data.code : `errcode ${a.errcode}: ${a.errmsg}`));
    // both processes served successes: the quota held across them, not within one
    const perProcess = [0, 1].map((k) => outcome.filter((c, i) => c === 200 && i % 2 === k).length);
    await checkQuotaRun(database.db, bank, outcome, { attempts: ATTEMPTS, quota: QUOTA });
    expect(perProcess.every((n) => n > 0), `successes per process: ${perProcess}`).toBe(true);
  }, 120_000);
});
