import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { buildProbeApp } from '../helpers/platform-fixtures.js';
import { defineRoute } from '../../src/platform/http/routes.js';
import { DateRange, Opt } from '../../src/platform/http/schemas.js';
import { guardInput, MAX_INPUT_DEPTH } from '../../src/platform/http/input-guard.js';

const ADD = '/manage-api/region/addRegion';
const PAGE = '/manage-api/region/queryRegionPage';
const GET = '/manage-api/region/getRegion';
const LIST = '/open-api/region/queryRegionList';

let t: TestApp;
let token: string;
let probe: FastifyInstance;

beforeAll(async () => {
  t = await createTestApp();
  token = (await t.loginStaff()).accessToken;
  probe = await buildProbeApp(t, [
    defineRoute({
      method: 'ANY',
      path: '/probe/echo',
      channels: ['manage'],
      auth: 'public',
      summary: 'probe',
      tags: ['probe'],
      body: Type.Object({
        flag: Opt(Type.Boolean()),
        count: Opt(Type.Integer({ minimum: 0, maximum: 1000 })),
        ratio: Opt(Type.Number()),
        ids: Opt(Type.Array(Type.Integer())),
        name: Opt(Type.String()),
        big: Type.Optional(Type.Integer()),
      }),
      response: Type.Unknown(),
      handler: async (_ctx, { body }) => body,
    }),
  ]);
});
afterAll(async () => {
  await probe?.close();
  await t?.close();
});

const post = (url: string, body: unknown) => t.post(url, body, token);
const raw = (url: string, payload: string) =>
  t.app
    .inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json', authorization: token } })
    .then((r) => ({ status: r.statusCode, body: r.json() }));
const echo = (query: string) =>
  probe
    .inject({ method: 'GET', url: `/manage-api/probe/echo?${query}` })
    .then((r) => ({ status: r.statusCode, body: r.json() }));
const refused = (errmsg: string) => ({ errcode: 400, errmsg });

describe('control characters', () => {
  const REGION_TEXT = ['shortName', 'cityCode', 'zipCode', 'mergerName', 'pinYin'];

  it.each(['\u0000', '\u0001', '\u0008', '\u000b', '\u001b', '\u007f'])(
    'refuses %j in every string that reaches SQL, naming the field',
    async (c) => {
      const bad = `a${c}b`;
      expect((await post(ADD, { name: bad, levelType: 1 })).body).toEqual(
        refused('name is invalid: must not contain control characters'),
      );
      for (const field of REGION_TEXT) {
        expect((await post(ADD, { name: 'x', levelType: 1, [field]: bad })).body).toEqual(
          refused(`${field} is invalid: must not contain control characters`),
        );
        expect((await post(PAGE, { [field]: bad })).body).toEqual(
          refused(`${field} is invalid: must not contain control characters`),
        );
        expect((await post(LIST, { [field]: bad })).body).toEqual(
          refused(`${field} is invalid: must not contain control characters`),
        );
      }
      expect((await post(PAGE, { keywords: bad })).body).toEqual(
        refused('keywords is invalid: must not contain control characters'),
      );
      expect((await t.post('/manage-api/auth/login', { username: bad, password: 'x', code: '1234' })).body).toEqual(
        refused('username is invalid: must not contain control characters'),
      );
      expect((await t.post('/app-api/auth/checkerLogin', { mobile: `1380000${c}0000`, password: 'x' })).body).toEqual(
        refused('mobile is invalid: must not contain control characters'),
      );
      for (const prefix of ['/app-api', '/mp-api']) {
        expect((await t.post(`${prefix}/auth/oauth2`, { code: 'c1', nickname: bad })).body).toEqual(
          refused('nickname is invalid: must not contain control characters'),
        );
      }
    },
  );

  it('refuses them in unknown fields, nested values and field names too', async () => {
    expect((await post(GET, { id: 320000, extra: { deep: ['ok', 'no\u0000'] } })).body).toEqual(
      refused('extra.deep[1] is invalid: must not contain control characters'),
    );
    expect((await raw(GET, '{"id":320000,"a\\u0000b":1}')).body.errmsg).toMatch(
      /must not contain control characters in its name$/,
    );
  });

  it('refuses a field named __proto__, in the body and in the query', async () => {
    expect((await raw(GET, '{"id":320000,"__proto__":{"isAdmin":true}}')).body).toEqual(
      refused('__proto__ is invalid: is not an allowed field name'),
    );
    expect((await raw(GET, '{"id":320000,"x":[{"__proto__":1}]}')).body).toEqual(
      refused('x[0].__proto__ is invalid: is not an allowed field name'),
    );
    expect((await echo('__proto__=1')).body).toEqual(refused('__proto__ is invalid: is not an allowed field name'));
  });

  it('quotes a field name that is not a plain identifier, so the path it names is unambiguous', async () => {
    expect((await raw(GET, '{"id":{" ":{"__proto__":0}}}')).body).toEqual(
      refused('id[" "].__proto__ is invalid: is not an allowed field name'),
    );
    expect((await raw(GET, '{"id":320000,"a.b":[{"":{"__proto__":1}}]}')).body).toEqual(
      refused('["a.b"][0][""].__proto__ is invalid: is not an allowed field name'),
    );
  });

  it('refuses them in the query string', async () => {
    const res = await t.post(`/manage-api/system/area/get-by-ip?ip=${encodeURIComponent('1.2.3.4\u0000')}`, {}, token);
    expect(res.body).toEqual(refused('ip is invalid: must not contain control characters'));
  });

  it('accepts tab, line feed and carriage return', async () => {
    const res = await post(ADD, { name: 'tab\tand\nnewline\r', levelType: 1, mergerName: 'a\tb\nc' });
    expect(res.body.errcode).toBe(0);
    expect(res.body.data.mergerName).toBe('a\tb\nc');
  });
});

describe('numbers', () => {
  it.each(['Infinity', '-Infinity', '1e999', 'NaN', '1e2', '0x10', ' 12', '12 ', '1_000', '.5', '5.'])(
    'refuses lng %j',
    async (v) => {
      expect((await post(ADD, { name: 'x', levelType: 1, lng: v })).body).toEqual(
        refused('lng is invalid: must be a number'),
      );
      expect((await post(ADD, { name: 'x', levelType: 1, lat: v })).body).toEqual(
        refused('lat is invalid: must be a number'),
      );
    },
  );

  it('refuses a JSON number that overflows to infinity, and a decimal string that does', async () => {
    expect((await raw(ADD, '{"name":"x","levelType":1,"lng":1e999}')).body).toEqual(
      refused('lng is invalid: must be a finite number'),
    );
    expect((await raw(ADD, '{"name":"x","levelType":1,"lat":-1e999}')).body).toEqual(
      refused('lat is invalid: must be a finite number'),
    );
    expect((await post(ADD, { name: 'x', levelType: 1, lng: '1' + '0'.repeat(400) })).body).toEqual(
      refused('lng is invalid: must be a finite number'),
    );
    expect((await post(ADD, { name: 'x', levelType: 1, lng: '1' + '0'.repeat(40) })).body).toEqual(
      refused('lng is invalid: must be between -180 and 180'),
    );
  });

  it('accepts decimal strings for numbers, as the Java clients send them', async () => {
    const res = await post(ADD, {
      name: 'decimal strings',
      levelType: '2',
      parentId: '320000',
      lng: '118.5',
      lat: '-32.25',
    });
    expect(res.body.errcode).toBe(0);
    expect(res.body.data).toMatchObject({ levelType: 2, parentId: 320000, lng: 118.5, lat: -32.25 });
    expect((await post(GET, { id: '+320000' })).body.data.name).toBe('江苏省');
  });

  it.each([
    [{ name: 123, levelType: 1 }, 'name is invalid: must be a string'],
    [{ name: true, levelType: 1 }, 'name is invalid: must be a string'],
    [{ name: 'x', levelType: true }, 'levelType is invalid: must be a whole number'],
    [{ name: 'x', levelType: false }, 'levelType is invalid: must be a whole number'],
    [{ name: 'x', levelType: [1] }, 'levelType is invalid: must be a whole number'],
    [{ name: 'x', levelType: {} }, 'levelType is invalid: must be a whole number'],
    [{ name: 'x', levelType: 1, parentId: true }, 'parentId is invalid: must be a whole number'],
    [{ name: 'x', levelType: 1, parentId: [320000] }, 'parentId is invalid: must be a whole number'],
    [{ name: 'x', levelType: 1, lng: false }, 'lng is invalid: must be a number'],
    [{ name: 'x', levelType: 1, cityCode: 25 }, 'cityCode is invalid: must be a string'],
  ])('never coerces %j', async (body, message) => {
    expect((await post(ADD, body)).body).toEqual(refused(message));
  });

  it.each([
    [{ pageNum: '0x10' }, 'pageNum is invalid: must be a whole number'],
    [{ pageNum: '1e1' }, 'pageNum is invalid: must be a whole number'],
    [{ pageNum: true }, 'pageNum is invalid: must be a whole number'],
    [{ pageSize: [5] }, 'pageSize is invalid: must be a whole number'],
    [{ idList: [1, '0x10'] }, 'idList[1] is invalid: must be a whole number'],
    [{ idList: [null] }, 'idList[0] is invalid: must be a whole number'],
  ])('refuses paging and list values %j', async (body, message) => {
    expect((await post(PAGE, body)).body).toEqual(refused(message));
  });

  it('treats "" as absent where a field is a number or a boolean, as Jackson reads it, and as missing where it is required', async () => {
    const page = await post(PAGE, { pageNum: '', pageSize: '', parentId: '' });
    expect(page.body.errcode).toBe(0);
    expect(page.body.data.list).toHaveLength(10);
    const added = await post(ADD, { name: 'blank numbers', levelType: 1, parentId: '', lng: '', lat: '' });
    expect(added.body.errcode, added.body.errmsg).toBe(0);
    expect(added.body.data).toMatchObject({ name: 'blank numbers', lng: null, lat: null });
    expect((await post(ADD, { name: 'x', levelType: '' })).body).toEqual(refused('levelType is required'));
    expect((await post(GET, { id: '' })).body).toEqual(refused('id is required'));
    // Still refused: "" inside a list of numbers, and "" where text is wanted stays text.
    expect((await post(PAGE, { idList: [''] })).body).toEqual(refused('idList[0] is invalid: must be a whole number'));
  });

  it('treats [] as absent for an optional list that must hold items (a Date[] range), and as missing where it is required', () => {
    const schema = Type.Object({ createdTimeRange: Opt(DateRange), estimationPeriod: DateRange });
    const period = ['2026-01-01', '2026-01-31'];
    expect(guardInput(schema, { createdTimeRange: [], estimationPeriod: period }, 'body')).toEqual({
      ok: true,
      value: { estimationPeriod: period },
    });
    const missing = guardInput(schema, { estimationPeriod: [] }, 'body');
    expect(missing.ok).toBe(false);
    expect(JSON.stringify(missing)).toContain('estimationPeriod');
  });

  it('treats null as absent where a field is optional, and as missing where it is required', async () => {
    expect((await post(PAGE, { pageNum: null, parentId: null, idList: null })).body.errcode).toBe(0);
    expect((await post(ADD, { name: 'x', levelType: null })).body).toEqual(refused('levelType is required'));
    expect((await post(GET, { id: null })).body).toEqual(refused('id is required'));
  });

  it('refuses an id that is anything but a positive whole number or its decimal text (property)', async () => {
    const isAcceptable = (v: unknown) =>
      (typeof v === 'number' && Number.isSafeInteger(v) && v >= 1) ||
      (typeof v === 'string' && /^[+-]?\d+(\.0+)?$/.test(v) && Number.isSafeInteger(Number(v)) && Number(v) >= 1);
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (id) => {
        fc.pre(!isAcceptable(id));
        const res = await post(GET, { id });
        expect(res.status).toBe(200);
        expect(res.body.errcode).toBe(400);
        // the field, or something nested in the value given for it, as one well-formed path
        expect(res.body.errmsg).toMatch(
          /^id(\.[A-Za-z_$][\w$]*|\[(\d+|"(?:[^"\\]|\\.)*")\])* (is required|is invalid: .+)$/,
        );
      }),
      { numRuns: 150 },
    );
  });
});

describe('blank is missing', () => {
  it.each(['', ' ', '   ', '\t', '\n', '\u3000', ' \u3000\t '])('refuses a required name of %j', async (name) => {
    expect((await post(ADD, { name, levelType: 1 })).body).toEqual(refused('name is required'));
  });

  it('applies to every required string: logins included', async () => {
    expect((await t.post('/app-api/auth/checkerLogin', { mobile: '\u3000', password: 'x' })).body).toEqual(
      refused('mobile is required'),
    );
    expect((await t.post('/manage-api/auth/login', { username: '  ', password: 'x', code: '1' })).body).toEqual(
      refused('username is required'),
    );
    expect((await t.post('/mp-api/auth/oauth2', { code: ' ' })).body).toEqual(refused('code is required'));
  });

  it('lets a required field take "" where its schema declares minLength 0 (a value that clears)', () => {
    const schema = Type.Object({
      photo: Type.String({ minLength: 0, maxLength: 10 }),
      name: Type.String({ maxLength: 10 }),
    });
    expect(guardInput(schema, { photo: '', name: 'n' }, 'body')).toEqual({ ok: true, value: { photo: '', name: 'n' } });
    expect(guardInput(schema, { photo: '', name: ' ' }, 'body')).toMatchObject({ ok: false });
  });

  it('leaves an optional blank string and a password with spaces alone', () => {
    // What a module makes of a blank optional text is its own rule (regions store none); the guard passes it on.
    const schema = Type.Object({ shortName: Opt(Type.String()), password: Type.String() });
    expect(guardInput(schema, { shortName: '  ', password: ' a b ' }, 'body')).toEqual({
      ok: true,
      value: { shortName: '  ', password: ' a b ' },
    });
  });
});

describe('nesting', () => {
  it(`refuses a body nested deeper than ${MAX_INPUT_DEPTH} levels, without a 500 however deep`, async () => {
    for (const depth of [MAX_INPUT_DEPTH + 5, 100_000]) {
      const payload = `{"id":320000,"pad":${'['.repeat(depth)}${']'.repeat(depth)}}`;
      const res = await raw(GET, payload);
      expect(res.status).toBe(200);
      expect(res.body.errcode).toBe(400);
      expect(res.body.errmsg).toMatch(/^pad(\[0\])+ is invalid: must not be nested more than 64 levels deep$/);
    }
  });
});

describe('query strings (the GET variant of an ANY route)', () => {
  it('turns decimal text into numbers, true/false into booleans and one value into a list', async () => {
    const res = await echo('flag=true&count=12&ratio=-1.5&ids=5&name=007');
    expect(res.body).toEqual({
      errcode: 0,
      errmsg: 'success',
      data: { flag: true, count: 12, ratio: -1.5, ids: [5], name: '007' },
    });
    expect((await echo('flag=false&ids=1&ids=2')).body.data).toEqual({ flag: false, ids: [1, 2] });
  });

  it('reads an empty value of a non-text field as absent', async () => {
    expect((await echo('count=&flag=&name=')).body.data).toEqual({ name: '' });
  });

  it.each([
    ['count=0x10', 'count is invalid: must be a whole number'],
    ['count=1e2', 'count is invalid: must be a whole number'],
    ['count=Infinity', 'count is invalid: must be a whole number'],
    ['count=5000', 'count is invalid: must be between 0 and 1000'],
    ['flag=yes', 'flag is invalid: must be a boolean'],
    ['flag=1', 'flag is invalid: must be a boolean'],
    ['ids=1&ids=x', 'ids[1] is invalid: must be a whole number'],
    ['big=99999999999999999999', 'big is invalid: must be between -9007199254740991 and 9007199254740991'],
    ['name=a%00b', 'name is invalid: must not contain control characters'],
  ])('refuses %s', async (query, message) => {
    const res = await echo(query);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(refused(message));
  });

  it('applies the body rules to the POST variant of the same route', async () => {
    const res = await probe.inject({
      method: 'POST',
      url: '/manage-api/probe/echo',
      payload: { flag: 'true', count: '3', ids: '5' },
    });
    expect(res.json()).toEqual(refused('ids is invalid: must be a list'));
    const ok = await probe.inject({
      method: 'POST',
      url: '/manage-api/probe/echo',
      payload: { flag: 'true', count: '3', ids: ['5'] },
    });
    expect(ok.json().data).toEqual({ flag: true, count: 3, ids: [5] });
  });
});

describe('guardInput on schemas of other shapes', () => {
  it('follows $ref into $defs, unions and intersections', () => {
    const schema = {
      $defs: {
        Node: {
          type: 'object',
          properties: { n: { type: 'integer' }, kids: { type: 'array', items: { $ref: 'Node' } } },
        },
      },
      type: 'object',
      properties: {
        tree: { $ref: '#/$defs/Node' },
        either: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
        both: {
          allOf: [
            { type: 'object', properties: { a: { type: 'number' } } },
            { type: 'object', properties: { b: { type: 'boolean' } }, required: ['b'] },
          ],
        },
      },
    };
    const out = guardInput(
      schema,
      { tree: { n: '1', kids: [{ n: '2', kids: [] }] }, either: '7', both: { a: '2.5', b: 'true' } },
      'body',
    );
    expect(out).toEqual({
      ok: true,
      value: { tree: { n: 1, kids: [{ n: 2, kids: [] }] }, either: 7, both: { a: 2.5, b: true } },
    });
    const blank = guardInput(schema, { both: { b: null } }, 'body');
    expect(blank.ok).toBe(false);
  });

  it('judges each input on its own when one schema guards many (what it derives from the schema is kept)', () => {
    const schema = {
      $defs: { Item: { type: 'object', properties: { q: { type: 'integer' } }, required: ['q'] } },
      type: 'object',
      properties: {
        items: { type: 'array', items: { $ref: 'Item' } },
        note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      },
      required: ['items'],
    };
    for (let round = 0; round < 3; round++) {
      expect(guardInput(schema, { items: [{ q: '3' }], note: null }, 'body')).toEqual({
        ok: true,
        value: { items: [{ q: 3 }], note: null },
      });
      // A field the schema does not know, sent in one request, changes nothing for the next.
      expect(guardInput(schema, { items: [{ q: 4, extra: '5' }] }, 'body')).toEqual({
        ok: true,
        value: { items: [{ q: 4, extra: '5' }] },
      });
      const missing = guardInput(schema, { items: [{ q: null }] }, 'body');
      expect(missing.ok ? null : missing.errors[0].params).toEqual({ missingProperty: 'q' });
      expect(guardInput(schema, { items: null }, 'body').ok).toBe(false);
    }
  });

  it('leaves a string where a union allows text, and any value where the schema says nothing', () => {
    const schema = {
      type: 'object',
      properties: { v: { anyOf: [{ type: 'string' }, { type: 'integer' }] }, free: {} },
    };
    expect(guardInput(schema, { v: '12', free: '12' }, 'body')).toEqual({ ok: true, value: { v: '12', free: '12' } });
  });
});
