import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { upsertOpenApp } from '../../src/platform/auth/open-app.repository.js';
import { sign, signingString } from '../../src/platform/auth/open-signature.js';
import { defineRoute } from '../../src/platform/http/routes.js';
import { Opt } from '../../src/platform/http/schemas.js';
import { openApiDocument } from '../../src/platform/openapi/register.js';
import { buildProbeApp } from '../helpers/platform-fixtures.js';
import { staffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * Where a request's fields come from (spec A §1 convention 1, docs/adr/0015-request-fields-read-as-a-java-client-sends-them.md):
 * an ANY route answers every method, a body-carrying call of it takes the query string's fields the
 * body lacks, and application/x-www-form-urlencoded bodies are read like JSON ones.
 */

const ECHO = '/manage-api/probe/anyEcho';
const POST_ECHO = '/manage-api/probe/postEcho';
const SIGNED = '/open-api/probe/signedEcho';
const GET_REGION = '/manage-api/region/getRegion';
const GET_BY_IP = '/manage-api/system/area/get-by-ip';
const DOWNLOAD = '/manage-api/oss/download';
const FORM = 'application/x-www-form-urlencoded';
const APP = { appKey: `frm-${randomBytes(4).toString('hex')}`, appSecret: randomBytes(24).toString('hex') };

const EchoBody = Type.Object({
  flag: Opt(Type.Boolean()),
  count: Opt(Type.Integer({ minimum: 0, maximum: 1000 })),
  ids: Opt(Type.Array(Type.Integer())),
  name: Opt(Type.String({ maxLength: 20 })),
  code: Type.String({ minLength: 1, maxLength: 20 }),
});

let t: TestApp;
let probe: FastifyInstance;
let token: string;

beforeAll(async () => {
  t = await createTestApp();
  token = (await t.loginStaff()).accessToken;
  await upsertOpenApp(t.db, { ...APP, name: 'form probe' });
  probe = await buildProbeApp(t, [
    defineRoute({
      method: 'ANY',
      path: '/probe/anyEcho',
      channels: ['manage'],
      auth: 'public',
      summary: 'probe',
      tags: ['probe'],
      body: EchoBody,
      response: Type.Unknown(),
      handler: async (ctx, { body }) => ({ method: ctx.method, body }),
    }),
    defineRoute({
      method: 'POST',
      path: '/probe/postEcho',
      channels: ['manage'],
      auth: 'public',
      summary: 'probe',
      tags: ['probe'],
      body: EchoBody,
      response: Type.Unknown(),
      handler: async (_ctx, { body }) => body,
    }),
    defineRoute({
      method: 'POST',
      path: '/probe/signedEcho',
      channels: ['open'],
      auth: 'open',
      permission: 'probe:signed',
      summary: 'probe',
      tags: ['probe'],
      body: Type.Object({ note: Opt(Type.String()), count: Opt(Type.Integer()) }),
      response: Type.Unknown(),
      handler: async (ctx, { body }) => ({ caller: ctx.account!.kind, body }),
    }),
  ]);
});
afterAll(async () => {
  await probe?.close();
  await t?.close();
});

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const call = (
  app: FastifyInstance,
  method: Method,
  url: string,
  payload?: string | object,
  contentType?: string,
  tok?: string,
) =>
  app.inject({
    method,
    url,
    ...(payload === undefined ? {} : { payload }),
    headers: {
      ...(contentType ? { 'content-type': contentType } : {}),
      ...(tok ? { authorization: `Bearer ${tok}` } : {}),
    },
  });
const ok = (data: unknown) => ({ errcode: 0, errmsg: 'success', data });
const refused = (errmsg: string) => ({ errcode: 400, errmsg });

describe('ANY routes answer every method', () => {
  it.each(['PUT', 'PATCH', 'DELETE', 'POST'] as const)('%s reads a JSON body like POST', async (method) => {
    const res = await call(probe, method, ECHO, { code: 'A1', count: '7', ids: [1, '2'] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(ok({ method, body: { code: 'A1', count: 7, ids: [1, 2] } }));
  });

  it.each(['PUT', 'PATCH', 'DELETE'] as const)('%s without a body reads the query string', async (method) => {
    const res = await call(probe, method, `${ECHO}?code=Q&flag=true&ids=5`);
    expect(res.json()).toEqual(ok({ method, body: { code: 'Q', flag: true, ids: [5] } }));
  });

  it.each(['PUT', 'PATCH', 'DELETE'] as const)('%s validates like POST, naming the field', async (method) => {
    expect((await call(probe, method, ECHO, { count: 1 })).json()).toEqual(refused('code is required'));
    expect((await call(probe, method, ECHO, { code: 'x', count: 5000 })).json()).toEqual(
      refused('count is invalid: must be between 0 and 1000'),
    );
  });

  it('still answers GET from the query string', async () => {
    expect((await call(probe, 'GET', `${ECHO}?code=G&count=3`)).json()).toEqual(
      ok({ method: 'GET', body: { code: 'G', count: 3 } }),
    );
  });

  it('keeps PUT, PATCH and DELETE off the routes that are POST only', async () => {
    for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
      const res = await call(probe, method, POST_ECHO, { code: 'x' });
      expect(res.statusCode).toBe(404);
      expect(res.json().errcode).toBe(404);
    }
  });

  it('the real ANY operations answer PUT and DELETE (spec A §1 convention 1)', async () => {
    const put = await call(t.app, 'PUT', '/manage-api/statistics/exportStatCardIssue', undefined, undefined, token);
    expect(put.statusCode).toBe(200);
    expect(put.headers['content-type']).toMatch(/spreadsheetml/);
    const del = await call(t.app, 'DELETE', '/manage-api/statistics/exportStatCardIssue', undefined, undefined, token);
    expect(del.headers['content-type']).toMatch(/spreadsheetml/);
  });

  it('documents every method an ANY route answers', async () => {
    const doc = openApiDocument(probe) as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(doc.paths[ECHO]).sort()).toEqual(['delete', 'get', 'patch', 'post', 'put']);
    expect(Object.keys(doc.paths['/manage-api/oss/download']).sort()).toEqual([
      'delete',
      'get',
      'patch',
      'post',
      'put',
    ]);
  });
});

describe('a body-carrying call of an ANY route also reads the query string', () => {
  it('is never declared on a signed route: the signature covers the body, not the query string', async () => {
    const signedAny = defineRoute({
      method: 'ANY',
      path: '/probe/signedAny',
      channels: ['open'],
      auth: 'open',
      permission: 'probe:signed',
      summary: 'probe',
      tags: ['probe'],
      body: EchoBody,
      response: Type.Unknown(),
      handler: async () => null,
    });
    await expect(buildProbeApp(t, [signedAny])).rejects.toThrow(
      'route /probe/signedAny is signed, so it cannot be ANY (its query fields would not be signed)',
    );
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE'] as const)(
    '%s with no body takes every field from the query',
    async (method) => {
      const res = await call(probe, method, `${ECHO}?code=Q1&count=4&ids=1&ids=2&name=n`);
      expect(res.json()).toEqual(ok({ method, body: { code: 'Q1', count: 4, ids: [1, 2], name: 'n' } }));
    },
  );

  it('fills the fields the body lacks; the body wins where both have one', async () => {
    const res = await call(probe, 'POST', `${ECHO}?code=fromQuery&count=9&name=q`, { name: 'body', flag: false });
    expect(res.json()).toEqual(
      ok({ method: 'POST', body: { code: 'fromQuery', count: 9, name: 'body', flag: false } }),
    );
    const both = await call(probe, 'POST', `${ECHO}?code=fromQuery`, { code: 'fromBody' });
    expect(both.json().data.body).toEqual({ code: 'fromBody' });
  });

  it('reads the query fields by the query-string rules (one value is a one-item list) and the body by the body rules', async () => {
    expect((await call(probe, 'POST', `${ECHO}?code=x&ids=5`, {})).json()).toEqual(
      ok({ method: 'POST', body: { code: 'x', ids: [5] } }),
    );
    expect((await call(probe, 'POST', `${ECHO}?code=x&count=`, {})).json()).toEqual(
      ok({ method: 'POST', body: { code: 'x' } }),
    );
    // a JSON body's list must still be a list
    expect((await call(probe, 'POST', `${ECHO}?code=x`, { ids: '5' })).json()).toEqual(
      refused('ids is invalid: must be a list'),
    );
  });

  it('validates the merged request, naming a query field that breaks a rule', async () => {
    expect((await call(probe, 'POST', `${ECHO}?count=5000`, { code: 'x' })).json()).toEqual(
      refused('count is invalid: must be between 0 and 1000'),
    );
    expect((await call(probe, 'POST', `${ECHO}?name=a%00b`, { code: 'x' })).json()).toEqual(
      refused('name is invalid: must not contain control characters'),
    );
    expect((await call(probe, 'POST', `${ECHO}?__proto__=1`, { code: 'x' })).json()).toEqual(
      refused('__proto__ is invalid: is not an allowed field name'),
    );
    expect((await call(probe, 'POST', `${ECHO}?count=1`)).json()).toEqual(refused('code is required'));
  });

  it('leaves the query string of a POST-only route unread', async () => {
    expect((await call(probe, 'POST', `${POST_ECHO}?code=x`)).json()).toEqual(refused('code is required'));
    const region = await call(t.app, 'POST', `${GET_REGION}?id=320000`, undefined, undefined, token);
    expect(region.json()).toEqual(refused('id is required'));
  });
});

describe('application/x-www-form-urlencoded bodies', () => {
  it('are parsed into an object and coerced like JSON (a repeated key is a list)', async () => {
    const res = await call(
      probe,
      'POST',
      ECHO,
      'code=F%201&flag=true&count=12&ids=1&ids=2&name=%E5%BC%A0+%E4%B8%89',
      FORM,
    );
    expect(res.json()).toEqual(
      ok({ method: 'POST', body: { code: 'F 1', flag: true, count: 12, ids: [1, 2], name: '张 三' } }),
    );
  });

  it('read a single value as a one-item list and an empty value of a non-text field as absent, as a query string is', async () => {
    const res = await call(probe, 'POST', POST_ECHO, 'code=x&ids=7&count=&flag=', FORM);
    expect(res.json()).toEqual(ok({ code: 'x', ids: [7] }));
  });

  it("are refused from another site's page (a browser sends them cross-site without asking), JSON too stays refused there", async () => {
    const crossSite = (payload: string, contentType: string, site: string) =>
      probe.inject({
        method: 'POST',
        url: POST_ECHO,
        payload,
        headers: { 'content-type': contentType, 'sec-fetch-site': site },
      });
    expect((await crossSite('code=x', FORM, 'cross-site')).json()).toEqual({
      errcode: 403,
      errmsg: 'a form posted from another site is refused',
    });
    expect((await crossSite('code=x', FORM, 'same-origin')).json()).toEqual(ok({ code: 'x' }));
    expect((await crossSite('code=x', FORM, 'none')).json()).toEqual(ok({ code: 'x' }));
    expect((await crossSite('{"code":"x"}', 'application/json', 'cross-site')).json()).toEqual(ok({ code: 'x' }));
  });

  it('accept a charset parameter', async () => {
    const res = await call(probe, 'POST', POST_ECHO, 'code=x', `${FORM}; charset=UTF-8`);
    expect(res.json()).toEqual(ok({ code: 'x' }));
  });

  it('read an empty body as {} (validated: a required field is missing)', async () => {
    expect((await call(probe, 'POST', POST_ECHO, '', FORM)).json()).toEqual(refused('code is required'));
    expect((await call(t.app, 'POST', '/manage-api/region/queryRegionTree', '', FORM, token)).json().errcode).toBe(0);
  });

  it('are validated like JSON, naming the field', async () => {
    expect((await call(probe, 'POST', POST_ECHO, 'code=x&count=many', FORM)).json()).toEqual(
      refused('count is invalid: must be a whole number'),
    );
    expect((await call(probe, 'POST', POST_ECHO, 'code=x&count=5000', FORM)).json()).toEqual(
      refused('count is invalid: must be between 0 and 1000'),
    );
    expect((await call(probe, 'POST', POST_ECHO, 'code=x&ids=1&ids=y', FORM)).json()).toEqual(
      refused('ids[1] is invalid: must be a whole number'),
    );
    expect((await call(probe, 'POST', POST_ECHO, 'code=x&name=a%01b', FORM)).json()).toEqual(
      refused('name is invalid: must not contain control characters'),
    );
    expect((await call(probe, 'POST', POST_ECHO, 'code=%20', FORM)).json()).toEqual(refused('code is required'));
    expect((await call(probe, 'POST', POST_ECHO, 'code=x&__proto__=1', FORM)).json()).toEqual(
      refused('__proto__ is invalid: is not an allowed field name'),
    );
  });

  it('work on a real route: getRegion by form', async () => {
    const res = await call(t.app, 'POST', GET_REGION, 'id=320000', FORM, token);
    expect(res.json().data.name).toBe('江苏省');
  });

  it('have the JSON body limit: over 1 MiB is 413', async () => {
    const res = await call(probe, 'POST', POST_ECHO, `code=x&pad=${'y'.repeat(1024 * 1024)}`, FORM);
    expect(res.json()).toEqual({ errcode: 413, errmsg: 'request body too large' });
  });

  it('are signed over their raw text on the open channel', async () => {
    const body = 'note=hello&count=3';
    const ts = String(Date.now());
    const nonce = randomBytes(12).toString('hex');
    const headers = {
      'content-type': FORM,
      'x-app-key': APP.appKey,
      'x-timestamp': ts,
      'x-nonce': nonce,
      'x-sign': sign(APP.appSecret, signingString('POST', SIGNED, ts, nonce, body)),
    };
    const res = await probe.inject({ method: 'POST', url: SIGNED, payload: body, headers });
    expect(res.json().errcode).toBe(0);
    expect(res.json().data.body).toEqual({ note: 'hello', count: 3 });
    const forged = await probe.inject({
      method: 'POST',
      url: SIGNED,
      payload: 'note=hello&count=4',
      headers: { ...headers, 'x-nonce': randomBytes(12).toString('hex') },
    });
    expect(forged.json().errcode).toBe(401);
  });

  it('do not open other content types: text/plain is still refused', async () => {
    expect((await call(probe, 'POST', POST_ECHO, 'code=x', 'text/plain')).json()).toEqual(
      refused('unsupported content type: send application/json'),
    );
  });

  it('serve get-by-ip with an empty form body and the ip in the query (qa-a2)', async () => {
    const res = await call(t.app, 'POST', `${GET_BY_IP}?ip=1.2.3.4`, '', FORM, token);
    expect(res.json().errcode).toBe(0);
    expect(typeof res.json().data).toBe('string');
  });
});

describe('oss/download by the spec method and the query string of its URL (qa-a2 M1)', () => {
  let staff: string;
  let fileKey: string;
  let fileUrl: string;
  const bytes = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(3000)]);
  const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

  beforeAll(async () => {
    staff = (await staffSession(t, { kind: 'platform', permissions: ['oss:upload', 'oss:download'] })).token;
    const up = await t.post(
      '/open-api/oss/uploadBase64',
      { fileName: 'doc.pdf', content: bytes.toString('base64') },
      staff,
    );
    expect(up.body.errcode).toBe(0);
    fileKey = up.body.data.fileKey;
    // the staff download URL as the service gave it out until 2026-11-27 (clients stored such URLs)
    fileUrl = `${DOWNLOAD}?fileKey=${encodeURIComponent(fileKey)}`;
  });

  it('POST to the download URL with no body streams the file', async () => {
    const res = await call(t.app, 'POST', fileUrl, undefined, undefined, staff);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(sha(res.rawPayload)).toBe(sha(bytes));
  });

  it('POST with the form body fileKey=… streams the file', async () => {
    const res = await call(t.app, 'POST', DOWNLOAD, new URLSearchParams({ fileKey }).toString(), FORM, staff);
    expect(sha(res.rawPayload)).toBe(sha(bytes));
  });

  it('PUT and DELETE of the download URL stream it too, and GET still does', async () => {
    for (const method of ['PUT', 'DELETE', 'GET'] as const) {
      const res = await call(t.app, method, fileUrl, undefined, undefined, staff);
      expect(sha(res.rawPayload)).toBe(sha(bytes));
    }
  });

  it('a JSON body names the file over the query string', async () => {
    const res = await call(t.app, 'POST', `${DOWNLOAD}?fileKey=no-such-key`, { fileKey }, undefined, staff);
    expect(sha(res.rawPayload)).toBe(sha(bytes));
  });
});
