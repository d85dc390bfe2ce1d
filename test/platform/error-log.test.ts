import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { defineRoute } from '../../src/platform/http/routes.js';
import { defineModule } from '../../src/platform/module.js';
import { MODULES } from '../../src/modules/index.js';
import { AppError } from '../../src/platform/errors.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { createStaff, requestCaptcha } from '../helpers/platform-fixtures.js';

interface LogLine {
  level: number;
  msg: string;
  errcode?: number;
  err?: { stack?: string };
  cause?: { code?: string; message?: string; stack?: string };
  [k: string]: unknown;
}

const INFO = 30;
const WARN = 40;
const ERROR = 50;

let t: TestApp;
let app: FastifyInstance;
let lines: LogLine[] = [];

/** The app as main builds it, logging at info into `lines`, with probe routes of each kind of failure. */
async function loggingApp(database = t.database): Promise<FastifyInstance> {
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  const probe = (path: string, fail: () => Promise<void>) =>
    defineRoute({
      method: 'POST',
      path,
      channels: ['manage'],
      auth: 'public',
      summary: 'probe',
      tags: ['probe'],
      response: null,
      handler: fail,
    });
  const probes = defineModule({
    name: 'probe',
    routes: () => [
      probe('/probe/boom', async () => {
        throw new TypeError('cannot read properties of undefined');
      }),
      probe('/probe/dependencyDown', async () => {
        throw new AppError(503, 'the WeChat login service is unavailable', 200, {
          cause: Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:443'), { code: 'ECONNREFUSED' }),
        });
      }),
      probe('/probe/outOfRange', async () => {
        await sql`select ${'99999999999'}::integer`.execute(t.db);
      }),
    ],
  });
  const built = await buildApp({
    config: t.config,
    database,
    store: t.store,
    logger: { level: 'info', stream },
    modules: [...MODULES, probes],
  });
  await built.ready();
  return built;
}

const refusals = () => lines.filter((l) => l.errcode !== undefined);

beforeAll(async () => {
  t = await createTestApp();
  app = await loggingApp();
});
afterAll(async () => {
  await app?.close();
  await t?.close();
});
beforeEach(() => {
  lines = [];
});

describe('log levels of failures', () => {
  it('logs a wrong password and an unknown user at info, without a stack', async () => {
    const u = await createStaff(t.db);
    for (const username of [u.username, 'nobody_at_all']) {
      const { key, code } = await requestCaptcha({ ...t, app });
      const res = await app.inject({
        method: 'POST',
        url: '/manage-api/auth/login',
        payload: { username, password: 'Wrong@Pass1', code, uuid: key },
      });
      expect(res.json().errcode).toBe(1_002_000_000);
    }
    expect(refusals()).toHaveLength(2);
    for (const l of refusals()) {
      expect(l).toMatchObject({ level: INFO, errcode: 1_002_000_000, msg: 'request refused' });
      expect(JSON.stringify(l)).not.toMatch(/stack| {4}at /);
    }
    expect(lines.filter((l) => l.level >= WARN)).toEqual([]);
  });

  it('logs validation, permission and not-found answers at info', async () => {
    const { accessToken } = await t.loginStaff();
    const reader = await createStaff(t.db, { permissions: ['region:read'] });
    const readerToken = (await t.loginStaff(reader.username, reader.password)).accessToken;
    const call = (url: string, payload: object, token?: string) =>
      app.inject({ method: 'POST', url, payload, headers: token ? { authorization: token } : {} });
    await call('/manage-api/region/getRegion', { id: 'x' }, accessToken);
    await call('/manage-api/auth/login', { username: 'a\u0000', password: 'x' });
    await call('/manage-api/region/getRegion', { id: 1 });
    await call('/manage-api/region/addRegion', { name: 'x', levelType: 1 }, readerToken);
    await call('/manage-api/region/getRegion', { id: 999_999_999 }, accessToken);
    expect(refusals().map((l) => [l.level, l.errcode])).toEqual([
      [INFO, 400],
      [INFO, 400],
      [INFO, 401],
      [INFO, 403],
      [INFO, 404],
    ]);
  });

  it('logs an unexpected failure at error with its stack', async () => {
    const res = await app.inject({ method: 'POST', url: '/manage-api/probe/boom' });
    expect(res.statusCode).toBe(500);
    const [line] = refusals();
    expect(line).toMatchObject({ level: ERROR, errcode: 500, msg: 'request failed' });
    expect(line.err?.stack).toMatch(/TypeError: cannot read properties of undefined\n\s+at /);
  });

  it('logs a failed dependency at warn with its cause, without a stack', async () => {
    const res = await app.inject({ method: 'POST', url: '/manage-api/probe/dependencyDown' });
    expect(res.json().errcode).toBe(503);
    const [line] = refusals();
    expect(line).toMatchObject({
      level: WARN,
      errcode: 503,
      cause: { code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 10.0.0.1:443' },
    });
    expect(JSON.stringify(line)).not.toMatch(/stack/);
  });

  it('logs an unreachable database at warn (503)', async () => {
    const unreachable = openDatabase({
      databaseUrl: 'postgres://postgres@127.0.0.1:1/none',
      dataDir: '.test-cache',
      tz: 'Asia/Shanghai',
    });
    const own = await loggingApp(unreachable);
    try {
      const { accessToken } = await t.loginStaff();
      const res = await own.inject({
        method: 'POST',
        url: '/manage-api/region/getRegion',
        headers: { authorization: accessToken },
        payload: { id: 320000 },
      });
      expect(res.statusCode).toBe(503);
      expect(refusals().map((l) => [l.level, l.errcode])).toEqual([[WARN, 503]]);
    } finally {
      await own.close();
      await unreachable.close();
    }
  });

  it('answers a value PostgreSQL refuses with 400 and logs it at warn, so a missing bound never answers 500', async () => {
    const res = await app.inject({ method: 'POST', url: '/manage-api/probe/outOfRange' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      errcode: 400,
      errmsg: 'a value is too long, out of range or not valid for its field',
    });
    const [line] = refusals();
    expect(line).toMatchObject({ level: WARN, errcode: 400, cause: { code: '22003' } });
  });
});

describe('request log', () => {
  it('leaves a file key out of the logged URL: the key alone fetches the file', async () => {
    const key = '2026/11/27/0123456789abcdef0123456789abcdef';
    await app.inject({ method: 'GET', url: `/open-api/oss/file?fileKey=${encodeURIComponent(key)}&x=1` });
    const incoming = lines.filter((l) => l.msg === 'incoming request');
    expect(incoming.length).toBeGreaterThan(0);
    const logged = JSON.stringify(lines);
    expect(logged).not.toContain('0123456789abcdef0123456789abcdef');
    expect((incoming.at(-1) as unknown as { req: { url: string } }).req.url).toBe('/open-api/oss/file?fileKey=…&x=1');
  });
});
