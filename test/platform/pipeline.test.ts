import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { buildProbeApp, createStaff, issueSession } from '../helpers/platform-fixtures.js';
import { buildApp } from '../../src/app.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { defineRoute } from '../../src/platform/http/routes.js';
import { recordOperation } from '../../src/platform/oplog/oplog.js';
import { AppError } from '../../src/platform/errors.js';

const TREE = '/manage-api/region/queryRegionTree';
const PAGE = '/manage-api/region/queryRegionPage';
const GET = '/manage-api/region/getRegion';
const ADD = '/manage-api/region/addRegion';

let t: TestApp;
let token: string;
let probe: FastifyInstance;

beforeAll(async () => {
  t = await createTestApp();
  token = (await t.loginStaff()).accessToken;
  probe = await buildProbeApp(t, [
    defineRoute({
      method: 'POST',
      path: '/probe/checkerOnly',
      channels: ['app', 'mp'],
      auth: { kinds: ['checker', 'member'] },
      summary: 'probe',
      tags: ['probe'],
      response: Type.Object({ kind: Type.String() }),
      handler: async (ctx) => ({ kind: ctx.account!.kind }),
    }),
    defineRoute({
      method: 'POST',
      path: '/probe/boom',
      channels: ['manage'],
      auth: 'public',
      summary: 'probe',
      tags: ['probe'],
      response: null,
      handler: async () => {
        throw new Error(
          'select password_hash from admin_user where id = 1\n    at Object.<anonymous> (/work/main/src/secret.ts:12:3)',
        );
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/probe/logThenFail',
      channels: ['manage'],
      auth: 'public',
      operation: ['探针', '写日志后失败'],
      summary: 'probe',
      tags: ['probe'],
      response: null,
      handler: async (ctx) => {
        await t.db.transaction().execute(async (trx) => {
          await recordOperation(trx, ctx, 'probe-1');
          throw new AppError(409, 'refused after the log row was written');
        });
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/probe/badSql',
      channels: ['manage'],
      auth: 'public',
      summary: 'probe',
      tags: ['probe'],
      response: null,
      handler: async () => {
        await sql`select secret_column from no_such_table_xyz`.execute(t.db);
      },
    }),
  ]);
});
afterAll(async () => {
  await probe?.close();
  await t?.close();
});

const injectJson = (url: string, payload: string, contentType: string, tok = token) =>
  t.app.inject({
    method: 'POST',
    url,
    payload,
    headers: { 'content-type': contentType, authorization: `Bearer ${tok}` },
  });

describe('envelope and body', () => {
  it('answers an unknown path with HTTP 404 and the envelope', async () => {
    const res = await t.call('POST', '/manage-api/region/noSuchOperation', { body: {}, token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ errcode: 404, errmsg: 'no operation at POST /manage-api/region/noSuchOperation' });
    const bare = await t.call('GET', '/nothing/here?x=1');
    expect(bare.status).toBe(404);
    expect(bare.body.errcode).toBe(404);
  });

  it('answers malformed JSON with errcode 400', async () => {
    const res = await injectJson(GET, '{"id": 320000', 'application/json');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ errcode: 400, errmsg: 'malformed JSON body' });
  });

  it('refuses a text/plain body with errcode 400 (unsupported content type)', async () => {
    const res = await injectJson(GET, 'id=320000', 'text/plain');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ errcode: 400, errmsg: 'unsupported content type: send application/json' });
  });

  it('accepts application/json with a charset', async () => {
    const res = await injectJson(GET, '{"id":320000}', 'application/json;charset=UTF-8');
    expect(res.json().data.name).toBe('江苏省');
  });

  it('unwraps {"body": {...}} and only when body is the only key', async () => {
    const wrapped = await t.post(GET, { body: { id: 320000 } }, token);
    expect(wrapped.body.errcode).toBe(0);
    expect(wrapped.body.data.id).toBe(320000);
    const notOnly = await t.post(GET, { body: { id: 320000 }, extra: 1 }, token);
    expect(notOnly.body).toEqual({ errcode: 400, errmsg: 'id is required' });
    const notObject = await t.post(GET, { body: 320000 }, token);
    expect(notObject.body).toEqual({ errcode: 400, errmsg: 'id is required' });
  });

  it('accepts an empty body on a void operation, with or without a JSON content type', async () => {
    const none = await t.app.inject({ method: 'POST', url: TREE, headers: { authorization: token } });
    expect(none.json().errcode).toBe(0);
    const empty = await injectJson(TREE, '', 'application/json');
    expect(empty.json().errcode).toBe(0);
  });

  it('reads an absent body as an empty request where every field is optional', async () => {
    const none = await t.app.inject({ method: 'POST', url: PAGE, headers: { authorization: token } });
    expect(none.json().errcode).toBe(0);
    expect(none.json().data.list).toHaveLength(10);
    const empty = await injectJson(PAGE, '', 'application/json');
    expect(empty.json().data.list).toHaveLength(10);
  });

  it('refuses a body over the 1 MiB limit with errcode 413', async () => {
    const res = await injectJson(
      PAGE,
      JSON.stringify({ keywords: 'x', pad: 'y'.repeat(1024 * 1024) }),
      'application/json',
    );
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ errcode: 413, errmsg: 'request body too large' });
  });

  it('ignores unknown fields', async () => {
    const res = await t.post(GET, { id: 320000, surprise: 'x' }, token);
    expect(res.body.errcode).toBe(0);
    expect(res.body.data).not.toHaveProperty('surprise');
  });
});

describe('validation messages name the field and the rule', () => {
  it.each([
    [ADD, { name: 'x', levelType: 9 }, 'levelType is invalid: must be between 0 and 5'],
    [ADD, { levelType: 1 }, 'name is required'],
    [ADD, { name: 'x' }, 'levelType is required'],
    [ADD, { name: 'x', levelType: 'abc' }, 'levelType is invalid: must be a whole number'],
    [ADD, { name: 'x', levelType: 1.5 }, 'levelType is invalid: must be a whole number'],
    [ADD, { name: '', levelType: 1 }, 'name is required'],
    [ADD, { name: 'x', levelType: 1, lng: 200 }, 'lng is invalid: must be between -180 and 180'],
    [PAGE, { pageSize: 1.5 }, 'pageSize is invalid: must be a whole number'],
    [PAGE, { pageNum: 'first' }, 'pageNum is invalid: must be a whole number'],
    [PAGE, { idList: 'abc' }, 'idList is invalid: must be a list'],
    [PAGE, { idList: { a: 1 } }, 'idList is invalid: must be a list'],
    [PAGE, { idList: [1, 'x'] }, 'idList[1] is invalid: must be a whole number'],
    [GET, {}, 'id is required'],
    [GET, { id: 0 }, 'id is invalid: must be between 1 and 9007199254740991'],
  ])('%s %j → %s', async (url, body, message) => {
    const res = await t.post(url, body, token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ errcode: 400, errmsg: message });
  });

  it('accepts explicit nulls for optional fields', async () => {
    const res = await t.post(
      PAGE,
      { pageNum: null, pageSize: null, keywords: null, levelType: null, parentId: 320000 },
      token,
    );
    expect(res.body.errcode).toBe(0);
  });
});

describe('paging', () => {
  let parentId: number;
  beforeAll(async () => {
    parentId = (await t.post(ADD, { name: 'paging parent', levelType: 1 }, token)).body.data.id;
    for (let i = 1; i <= 12; i++) {
      expect((await t.post(ADD, { name: `paging child ${i}`, levelType: 2, parentId }, token)).body.errcode).toBe(0);
    }
  });

  it('defaults to pageNum 1 and pageSize 10', async () => {
    const res = await t.post(PAGE, { parentId }, token);
    expect(res.body.data.total).toBe(12);
    expect(res.body.data.list).toHaveLength(10);
    expect(res.body.data.list[0].name).toBe('paging child 1');
  });

  it('answers later pages and the bounds', async () => {
    const second = await t.post(PAGE, { parentId, pageNum: 2 }, token);
    expect(second.body.data.list.map((r: { name: string }) => r.name)).toEqual(['paging child 11', 'paging child 12']);
    expect(second.body.data.total).toBe(12);
    expect((await t.post(PAGE, { parentId, pageNum: 3 }, token)).body.data).toEqual({ list: [], total: 12 });
    expect((await t.post(PAGE, { parentId, pageSize: 200 }, token)).body.data.list).toHaveLength(12);
    expect((await t.post(PAGE, { parentId, pageSize: 1 }, token)).body.data.list).toHaveLength(1);
  });

  it('reads out-of-range paging as a Java client means it, never refusing it', async () => {
    const names = async (body: object) => {
      const res = await t.post(PAGE, { parentId, ...body }, token);
      expect(res.body.errcode, JSON.stringify(res.body)).toBe(0);
      expect(res.body.data.total).toBe(12);
      return res.body.data.list.map((r: { name: string }) => r.name);
    };
    const firstTen = await names({});
    // pageNum 0 or less is page 1
    expect(await names({ pageNum: 0 })).toEqual(firstTen);
    expect(await names({ pageNum: -3 })).toEqual(firstTen);
    // pageSize 0 or less is the default 10; above the maximum it is the maximum
    expect(await names({ pageSize: 0 })).toEqual(firstTen);
    expect(await names({ pageSize: -1 })).toEqual(firstTen);
    expect(await names({ pageSize: 500 })).toHaveLength(12);
    expect(await names({ pageSize: '500', pageNum: '0' })).toHaveLength(12);
    // a page far beyond the data is empty, however far
    expect(await names({ pageNum: Number.MAX_SAFE_INTEGER, pageSize: 200 })).toEqual([]);
  });

  it('clamps pageSize at the maximum of 200 rows', async () => {
    for (let i = 13; i <= 205; i++) await t.post(ADD, { name: `paging child ${i}`, levelType: 2, parentId }, token);
    const res = await t.post(PAGE, { parentId, pageSize: 10_000 }, token);
    expect(res.body.data.total).toBe(205);
    expect(res.body.data.list).toHaveLength(200);
  });
});

describe('authentication', () => {
  it('accepts the token with and without the Bearer prefix', async () => {
    const withPrefix = await t.app.inject({ method: 'POST', url: TREE, headers: { authorization: `Bearer ${token}` } });
    const lower = await t.app.inject({ method: 'POST', url: TREE, headers: { authorization: `bearer ${token}` } });
    const bare = await t.app.inject({ method: 'POST', url: TREE, headers: { authorization: token } });
    for (const res of [withPrefix, lower, bare]) expect(res.json().errcode).toBe(0);
  });

  it('answers 401 (HTTP 200) without a token or with a made-up one', async () => {
    const none = await t.post(TREE, {});
    expect(none.status).toBe(200);
    expect(none.body.errcode).toBe(401);
    for (const garbage of ['garbage', 'x'.repeat(43), 'Bearer ' + 'y'.repeat(300), 'Basic dXNlcjpwYXNz']) {
      const res = await t.app.inject({ method: 'POST', url: TREE, headers: { authorization: garbage } });
      expect(res.json().errcode).toBe(401);
    }
  });

  it('refuses a staff token on /app-api and /mp-api, and a verifier token on /manage-api', async () => {
    for (const url of ['/app-api/probe/checkerOnly', '/mp-api/probe/checkerOnly']) {
      const res = await probe.inject({ method: 'POST', url, headers: { authorization: token } });
      expect(res.json().errcode).toBe(401);
    }
    const checker = await issueSession(t, { kind: 'checker' }, 'app');
    const ok = await probe.inject({
      method: 'POST',
      url: '/app-api/probe/checkerOnly',
      headers: { authorization: checker.accessToken },
    });
    expect(ok.json()).toEqual({ errcode: 0, errmsg: 'success', data: { kind: 'checker' } });
    // bound to its channel: an app token is refused on the mini-program channel even for an allowed kind
    const mp = await probe.inject({
      method: 'POST',
      url: '/mp-api/probe/checkerOnly',
      headers: { authorization: checker.accessToken },
    });
    expect(mp.json().errcode).toBe(401);
    expect((await t.post(TREE, {}, checker.accessToken)).body.errcode).toBe(401);
  });
});

describe('authorisation', () => {
  it('refuses addRegion without region:write but serves queryRegionTree with region:read', async () => {
    const reader = await createStaff(t.db, { permissions: ['region:read'] });
    const { accessToken } = await t.loginStaff(reader.username, reader.password);
    const add = await t.post(ADD, { name: 'not allowed', levelType: 1 }, accessToken);
    expect(add.status).toBe(200);
    expect(add.body).toEqual({ errcode: 403, errmsg: 'no permission: region:write is required' });
    expect((await t.post(TREE, {}, accessToken)).body.errcode).toBe(0);
    expect((await t.post('/manage-api/system/area/tree', {}, accessToken)).body.errcode).toBe(403);
    const page = await t.post(PAGE, { keywords: 'not allowed' }, accessToken);
    expect(page.body.data.total).toBe(0);
  });

  it('grants a whole module with module:*', async () => {
    const writer = await createStaff(t.db, { permissions: ['region:*'] });
    const { accessToken } = await t.loginStaff(writer.username, writer.password);
    expect((await t.post(ADD, { name: 'allowed by wildcard', levelType: 1 }, accessToken)).body.errcode).toBe(0);
  });

  it('refuses everything to a user without roles', async () => {
    const nobody = await createStaff(t.db, { permissions: [] });
    const { accessToken } = await t.loginStaff(nobody.username, nobody.password);
    expect((await t.post(TREE, {}, accessToken)).body.errcode).toBe(403);
  });
});

describe('failures', () => {
  it('answers an unexpected error with HTTP 500 and a message that leaks nothing', async () => {
    for (const url of ['/manage-api/probe/boom', '/manage-api/probe/badSql']) {
      const res = await probe.inject({ method: 'POST', url });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ errcode: 500, errmsg: 'internal server error' });
      expect(res.body).not.toMatch(/select|admin_user|no_such_table|secret|\.ts|at /i);
    }
  });

  it('answers 500 when the database handle was closed under the app', async () => {
    const own = await createTestApp();
    const { accessToken } = await own.loginStaff();
    await own.database.close();
    const res = await own.post(GET, { id: 320000 }, accessToken);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ errcode: 500, errmsg: 'internal server error' });
    await own.app.close();
    await own.store.close();
    // closed piece by piece (its database first), so its data directory is removed here too
    rmSync(own.config.dataDir, { recursive: true, force: true });
  });

  it('answers 503 when the database is unreachable, and /readyz says not ready', async () => {
    const unreachable = openDatabase({
      databaseUrl: 'postgres://postgres@127.0.0.1:1/none',
      dataDir: '.test-cache',
      tz: 'Asia/Shanghai',
    });
    const app = await buildApp({ config: t.config, database: unreachable, store: t.store, logger: false });
    try {
      // the session lives in the shared store, so the call reaches the database
      const res = await app.inject({
        method: 'POST',
        url: GET,
        headers: { authorization: token },
        payload: { id: 320000 },
      });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ errcode: 503, errmsg: 'service temporarily unavailable' });
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json().errcode).toBe(503);
    } finally {
      await app.close();
      await unreachable.close();
    }
  });

  it.runIf(!!process.env.REDIS_URL)('answers 503 when Redis is unreachable', async () => {
    const own = await createTestApp({}, { db: { database: t.database, db: t.db, close: async () => {} } });
    await own.store.close();
    const img = await own.app.inject({ method: 'GET', url: '/manage-api/auth/getRandomCodeImg' });
    expect(img.statusCode).toBe(503);
    expect(img.json()).toEqual({ errcode: 503, errmsg: 'service temporarily unavailable' });
    expect((await own.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
    await own.app.close();
    rmSync(own.config.dataDir, { recursive: true, force: true });
  });
});

describe('health, metrics and documents', () => {
  it('answers /healthz and /readyz with the kinds of database and store', async () => {
    const health = await t.call('GET', '/healthz');
    expect(health.body).toEqual({ errcode: 0, errmsg: 'success', data: { status: 'ok' } });
    const ready = await t.call('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.data).toEqual({
      status: 'ready',
      database: process.env.DATABASE_URL ? 'postgres' : 'pglite',
      store: process.env.REDIS_URL ? 'redis' : 'memory',
    });
  });

  it('serves Prometheus metrics with the request latency histogram', async () => {
    await t.post(TREE, {}, token);
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toContain('# TYPE http_request_duration_seconds histogram');
    expect(res.body).toMatch(
      /http_request_duration_seconds_bucket\{[^}]*route="\/manage-api\/region\/queryRegionTree"/,
    );
    expect(res.body).toContain('process_cpu_seconds_total');
    // the background jobs' families, so an alert can watch a job that keeps failing
    expect(res.body).toContain('# TYPE background_job_runs_total counter');
    expect(res.body).toContain('# TYPE background_job_last_success_timestamp_seconds gauge');
  });

  it('counts each route, method and status in a series of its own', async () => {
    const count = async (route: string, method: string, status: number) => {
      const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
      const line = text
        .split('\n')
        .find(
          (l) =>
            l.startsWith('http_request_duration_seconds_count{') &&
            l.includes(`route="${route}"`) &&
            l.includes(`method="${method}"`) &&
            l.includes(`status="${status}"`),
        );
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const before = [
      await count(GET, 'POST', 200),
      await count(PAGE, 'POST', 200),
      await count('unmatched', 'GET', 404),
    ];
    await t.post(GET, { id: 110000 }, token);
    await t.post(GET, { id: 110000 }, token);
    await t.post(PAGE, {}, token);
    // a GET of a POST-only operation matches no route: unknown paths share one series
    await t.app.inject({ method: 'GET', url: GET });
    expect([
      await count(GET, 'POST', 200),
      await count(PAGE, 'POST', 200),
      await count('unmatched', 'GET', 404),
    ]).toEqual([before[0] + 2, before[1] + 1, before[2] + 1]);
  });

  it('serves the OpenAPI 3.1 document and the docs page', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/manage-api/region/queryRegionTree'].post).toBeDefined();
    expect(doc.paths['/open-api/region/queryRegionList'].post).toBeDefined();
    expect(doc.paths['/manage-api/auth/getRandomCodeImg'].get).toBeDefined();
    expect(doc.paths['/metrics']).toBeUndefined();
    const docs = await t.app.inject({ method: 'GET', url: '/docs' });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toMatch(/^text\/html/);
    expect(docs.body).toMatch(/<html/i);
  });
});

describe('operation log', () => {
  const maxLogId = async () =>
    Number(
      (
        await t.db
          .selectFrom('operate_log')
          .select((eb) => eb.fn.max('id').as('m'))
          .executeTakeFirst()
      )?.m ?? 0,
    );

  it('writes one success row with the business id for addRegion', async () => {
    const mark = await maxLogId();
    const res = await t.call('POST', ADD, {
      body: { name: 'oplog region', levelType: 1 },
      token,
      headers: { 'user-agent': 'oplog-test/1.0' },
    });
    expect(res.body.errcode).toBe(0);
    const rows = await t.db.selectFrom('operate_log').selectAll().where('id', '>', mark).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      module: '地区管理',
      action: '新增地区',
      account_kind: 'admin',
      account_name: 'Administrator',
      success: true,
      errcode: 0,
      biz_id: String(res.body.data.id),
      method: 'POST',
      path: ADD,
      user_agent: 'oplog-test/1.0',
      ip: '127.0.0.1',
    });
    expect(rows[0].duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('writes a failure row for a refused deleteRegion, and the region stays', async () => {
    const parent = (await t.post(ADD, { name: 'oplog parent', levelType: 1 }, token)).body.data.id;
    await t.post(ADD, { name: 'oplog child', levelType: 2, parentId: parent }, token);
    const mark = await maxLogId();
    const res = await t.post('/manage-api/region/deleteRegion', { id: parent }, token);
    expect(res.body.errcode).toBe(409);
    const rows = await t.db.selectFrom('operate_log').selectAll().where('id', '>', mark).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      action: '删除地区',
      success: false,
      errcode: 409,
      path: '/manage-api/region/deleteRegion',
    });
    expect((await t.post(GET, { id: parent }, token)).body.data.name).toBe('oplog parent');
  });

  it('writes the failure row when the transaction that held the success row rolled back', async () => {
    const mark = await maxLogId();
    const res = await probe.inject({ method: 'POST', url: '/manage-api/probe/logThenFail' });
    expect(res.json().errcode).toBe(409);
    const rows = await t.db.selectFrom('operate_log').selectAll().where('id', '>', mark).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ module: '探针', action: '写日志后失败', success: false, errcode: 409 });
  });

  it('writes no row for a call refused before the operation ran (validation, permission)', async () => {
    const mark = await maxLogId();
    expect((await t.post(ADD, { levelType: 1 }, token)).body.errcode).toBe(400);
    expect((await t.post(ADD, { name: 'x', levelType: 1 })).body.errcode).toBe(401);
    expect(await maxLogId()).toBe(mark);
  });

  it('commits with the change: when the log row cannot be written, the region is not added', async () => {
    await sql`alter table operate_log add constraint probe_refuse_agent check (user_agent <> 'refuse-oplog')`.execute(
      t.db,
    );
    try {
      const res = await t.call('POST', ADD, {
        body: { name: 'rolled back with its log', levelType: 1 },
        token,
        headers: { 'user-agent': 'refuse-oplog' },
      });
      expect(res.status).toBe(500);
      const page = await t.post(PAGE, { name: 'rolled back with its log' }, token);
      expect(page.body.data.total).toBe(0);
    } finally {
      await sql`alter table operate_log drop constraint probe_refuse_agent`.execute(t.db);
    }
  });
});
