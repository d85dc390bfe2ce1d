import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { adminUrl } from '../helpers/global-setup.js';
import { TEST_ADMIN } from '../helpers/test-env.js';
import { freePort, sleep } from '../helpers/platform-fixtures.js';
import { testStorePrefix } from '../helpers/store-prefix.js';

// The real process: `node --import tsx src/main.ts` on a data directory of its own (PGlite), or on a
// database copied from the seeded template with Redis when the suite runs on PostgreSQL.

let dataDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'tc-shutdown-'));
  env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    ADMIN_PASSWORD: TEST_ADMIN.password,
    CAPTCHA_BYPASS_CODE: '0000',
    LOG_LEVEL: 'warn',
    STORE_PREFIX: testStorePrefix('shutdown'),
  };
  const url = process.env.DATABASE_URL;
  if (url) {
    const name = `tc_t_${inject('runId')}_shutdown`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create database ${name} template ${inject('pgTemplate')}`);
    await admin.end();
    env.DATABASE_URL = adminUrl(url, name);
    if (process.env.REDIS_URL) env.REDIS_URL = process.env.REDIS_URL;
  }
});

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

interface Service {
  child: ChildProcess;
  base: string;
  exited: Promise<number | null>;
  output: () => string;
}

async function start(extraEnv: Record<string, string> = {}): Promise<Service> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: process.cwd(),
    env: { ...env, ...extraEnv, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited early (${child.exitCode}):\n${out}`);
    try {
      const res = await fetch(`${base}/readyz`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`service not ready in time:\n${out}`);
    await sleep(100);
  }
  return { child, base, exited, output: () => out };
}

async function captchaKey(base: string): Promise<string> {
  const res = await fetch(`${base}/manage-api/auth/getRandomCodeImg`);
  await res.arrayBuffer();
  return res.headers.get('x-captcha-key')!;
}

async function postJson(base: string, url: string, body: unknown, token?: string) {
  const res = await fetch(base + url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return (await res.json()) as { errcode: number; errmsg: string; data?: any };
}

async function login(base: string): Promise<string> {
  const uuid = await captchaKey(base);
  const res = await postJson(base, '/manage-api/auth/login', {
    username: TEST_ADMIN.username,
    password: TEST_ADMIN.password,
    code: '0000',
    uuid,
  });
  expect(res.errcode, res.errmsg).toBe(0);
  return res.data.accessToken;
}

/**
 * A POST sent in two parts: the headers and half the body now, the rest on `finish()`. Once the
 * server has read the first part the request is in flight, whatever happens to the process next.
 */
function postInTwoParts(base: string, url: string, body: unknown, o: { keepAlive?: boolean } = {}) {
  const payload = Buffer.from(JSON.stringify(body));
  const half = Math.floor(payload.length / 2);
  let req!: http.ClientRequest;
  // (agent: false sends "Connection: close"; a keep-alive agent leaves the connection to the server)
  const agent = o.keepAlive ? new http.Agent({ keepAlive: true }) : false;
  const done = new Promise<{ status: number; body: any; connection: string | undefined }>((resolve, reject) => {
    req = http.request(
      base + url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': payload.length } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          if (agent) agent.destroy();
          resolve({ status: res.statusCode!, body: JSON.parse(text), connection: res.headers.connection });
        });
      },
    );
    req.on('error', reject);
    req.write(payload.subarray(0, half));
  });
  return { done, finish: () => req.end(payload.subarray(half)) };
}

describe('graceful shutdown', () => {
  it('finishes in-flight requests on SIGTERM, exits 0, and restarts on the same data', async () => {
    const first = await start();
    let regionId: number;
    try {
      const token = await login(first.base);
      const name = `持久化-${randomBytes(3).toString('hex')}`;
      const added = await postJson(first.base, '/manage-api/region/addRegion', { name, levelType: 1 }, token);
      expect(added.errcode).toBe(0);
      regionId = added.data.id;

      // logins (argon2 and a transaction each) that the service has begun to read when the signal comes
      const keys = await Promise.all(Array.from({ length: 4 }, () => captchaKey(first.base)));
      // half of them from keep-alive clients: their connections must not hold the exit once answered
      const calls = keys.map((uuid, i) =>
        postInTwoParts(
          first.base,
          '/manage-api/auth/login',
          { username: TEST_ADMIN.username, password: TEST_ADMIN.password, code: '0000', uuid },
          { keepAlive: i % 2 === 0 },
        ),
      );
      await sleep(200);
      first.child.kill('SIGTERM');
      await sleep(100);
      // draining: no new connections, but the process waits for the requests it has begun
      await expect(fetch(`${first.base}/healthz`)).rejects.toThrow();
      expect(first.child.exitCode).toBeNull();
      for (const c of calls) c.finish();
      const results = await Promise.all(calls.map((c) => c.done));
      const answeredAt = performance.now();
      for (const r of results) {
        expect(r.status).toBe(200);
        expect(r.body.errcode, r.body.errmsg).toBe(0);
        // answered while draining: the client is told to close (a keep-alive connection left open
        // would hold the close until its 65 s keep-alive timeout, past the forced exit)
        expect(r.connection).toBe('close');
      }
      expect(await first.exited, first.output()).toBe(0);
      expect(performance.now() - answeredAt, 'exit after the last answer (ms)').toBeLessThan(10_000);
    } finally {
      if (first.child.exitCode === null) first.child.kill('SIGKILL');
    }

    const second = await start();
    try {
      const token = await login(second.base);
      const got = await postJson(second.base, '/manage-api/region/getRegion', { id: regionId! }, token);
      expect(got.errcode).toBe(0);
      expect(got.data.name).toMatch(/^持久化-/);
      second.child.kill('SIGTERM');
      expect(await second.exited, second.output()).toBe(0);
    } finally {
      if (second.child.exitCode === null) second.child.kill('SIGKILL');
    }
  });

  it('with SHUTDOWN_DELAY_MS keeps serving while /readyz says 503, then exits 0', async () => {
    const svc = await start({ SHUTDOWN_DELAY_MS: '1500' });
    try {
      svc.child.kill('SIGTERM');
      await sleep(300);
      const ready = await fetch(`${svc.base}/readyz`);
      expect(ready.status).toBe(503);
      expect((await ready.json()).errmsg).toBe('shutting down');
      // still serving, but each answer tells its client to take the next request elsewhere
      expect(ready.headers.get('connection')).toBe('close');
      const token = await login(svc.base);
      expect(token).toBeTruthy();
      expect(await svc.exited, svc.output()).toBe(0);
    } finally {
      if (svc.child.exitCode === null) svc.child.kill('SIGKILL');
    }
  });
});
