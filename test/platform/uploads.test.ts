import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { upsertOpenApp } from '../../src/platform/auth/open-app.repository.js';
import { sign, signingString } from '../../src/platform/auth/open-signature.js';
import { defineRoute } from '../../src/platform/http/routes.js';
import { Opt } from '../../src/platform/http/schemas.js';
import { buildProbeApp } from '../helpers/platform-fixtures.js';
import { staffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const URL_PATH = '/open-api/probe/upload';
const APP = { appKey: `upl-${randomBytes(4).toString('hex')}`, appSecret: randomBytes(24).toString('hex') };
const MAX = 64 * 1024;

let t: TestApp;
let probe: FastifyInstance;
let token: string;
let tempDir: string;

beforeAll(async () => {
  t = await createTestApp({ UPLOAD_MAX_FILES: '2' });
  tempDir = path.join(t.config.dataDir, 'tmp');
  await upsertOpenApp(t.db, { ...APP, name: 'upload probe' });
  token = (await staffSession(t, { kind: 'platform', permissions: ['probe:upload', 'sales:read'] })).token;
  probe = await buildProbeApp(t, [
    defineRoute({
      method: 'POST',
      path: '/probe/upload',
      channels: ['open'],
      auth: 'open',
      permission: 'probe:upload',
      upload: { maxFileBytes: MAX },
      summary: 'probe',
      tags: ['probe'],
      body: Type.Object({ note: Opt(Type.String({ maxLength: 20 })), count: Opt(Type.Integer()) }),
      response: Type.Object({
        caller: Type.String(),
        note: Type.Any(),
        count: Type.Any(),
        files: Type.Array(Type.Any()),
      }),
      handler: async (ctx, { body, files }) => ({
        caller: ctx.account!.kind,
        note: body.note ?? null,
        count: body.count ?? null,
        files: files.map((f) => ({
          field: f.field,
          fileName: f.fileName,
          size: f.size,
          sha256: f.sha256,
          head: f.head.subarray(0, 4).toString('hex'),
          onDisk: existsSync(f.tempPath),
        })),
      }),
    }),
  ]);
});
afterAll(async () => {
  await probe?.close();
  await t?.close();
});

async function form(parts: Array<[string, string | { name: string; bytes: Buffer }]>) {
  const fd = new FormData();
  for (const [field, v] of parts) {
    if (typeof v === 'string') fd.append(field, v);
    else fd.append(field, new Blob([new Uint8Array(v.bytes)]), v.name);
  }
  const req = new Request('http://local/', { method: 'POST', body: fd });
  return { body: Buffer.from(await req.arrayBuffer()), contentType: req.headers.get('content-type')! };
}

function signed(body: Buffer, over: { path?: string; bodyForSign?: Buffer } = {}) {
  const ts = String(Date.now());
  const nonce = randomBytes(12).toString('hex');
  return {
    'x-app-key': APP.appKey,
    'x-timestamp': ts,
    'x-nonce': nonce,
    'x-sign': sign(APP.appSecret, signingString('POST', over.path ?? URL_PATH, ts, nonce, over.bodyForSign ?? body)),
  };
}

const tempFiles = () => (existsSync(tempDir) ? readdirSync(tempDir) : []);
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('multipart uploads', () => {
  it('receives files into temporary files (size, sha256, first bytes, the name without any path) and fields into the body; removes them after', async () => {
    const png = Buffer.concat([Buffer.from('89504e47', 'hex'), randomBytes(5000)]);
    const { body, contentType } = await form([
      ['note', 'hello'],
      ['count', '3'],
      ['file', { name: '../../etc/passwd', bytes: png }],
    ]);
    const res = await probe.inject({
      method: 'POST',
      url: URL_PATH,
      payload: body,
      headers: { 'content-type': contentType, authorization: `Bearer ${token}` },
    });
    expect(res.json()).toEqual({
      errcode: 0,
      errmsg: 'success',
      data: {
        caller: 'admin',
        note: 'hello',
        count: 3,
        files: [
          { field: 'file', fileName: 'passwd', size: png.length, sha256: sha(png), head: '89504e47', onDisk: true },
        ],
      },
    });
    expect(tempFiles()).toEqual([]);
  });

  it('accepts an open-channel signature computed over the raw multipart body', async () => {
    const bytes = randomBytes(3000);
    const { body, contentType } = await form([['file', { name: 'a.bin', bytes }]]);
    const res = await probe.inject({
      method: 'POST',
      url: URL_PATH,
      payload: body,
      headers: { 'content-type': contentType, ...signed(body) },
    });
    expect(res.json().errcode).toBe(0);
    expect(res.json().data.caller).toBe('openApp');
    expect(res.json().data.files[0].sha256).toBe(sha(bytes));
  });

  it('refuses a signature that does not cover the body as sent, and keeps nothing', async () => {
    const { body, contentType } = await form([['file', { name: 'a.bin', bytes: randomBytes(2000) }]]);
    const tampered = Buffer.from(body);
    tampered[tampered.length - 60] ^= 1;
    const res = await probe.inject({
      method: 'POST',
      url: URL_PATH,
      payload: tampered,
      headers: { 'content-type': contentType, ...signed(body) },
    });
    expect(res.json()).toEqual({ errcode: 401, errmsg: 'signature mismatch' });
    expect(tempFiles()).toEqual([]);
  });

  it('refuses a file over the limit with 413 and removes what was written', async () => {
    const { body, contentType } = await form([['file', { name: 'big.bin', bytes: randomBytes(MAX + 1) }]]);
    const res = await probe.inject({
      method: 'POST',
      url: URL_PATH,
      payload: body,
      headers: { 'content-type': contentType, authorization: token },
    });
    expect(res.json()).toEqual({ errcode: 413, errmsg: `the file is larger than the limit of ${MAX} bytes` });
    expect(tempFiles()).toEqual([]);
  });

  it('refuses more files than UPLOAD_MAX_FILES with 413', async () => {
    const f = () => ({ name: 'x.bin', bytes: randomBytes(10) });
    const { body, contentType } = await form([
      ['a', f()],
      ['b', f()],
      ['c', f()],
    ]);
    const res = await probe.inject({
      method: 'POST',
      url: URL_PATH,
      payload: body,
      headers: { 'content-type': contentType, authorization: token },
    });
    expect(res.json()).toEqual({ errcode: 413, errmsg: 'at most 2 files may be sent at once' });
    expect(tempFiles()).toEqual([]);
  });

  it('validates the fields like any body, naming the field', async () => {
    const { body, contentType } = await form([['count', 'many']]);
    const res = await probe.inject({
      method: 'POST',
      url: URL_PATH,
      payload: body,
      headers: { 'content-type': contentType, authorization: token },
    });
    expect(res.json()).toEqual({ errcode: 400, errmsg: 'count is invalid: must be a whole number' });
  });

  it('refuses JSON on an upload route, and multipart on a JSON route, with 400', async () => {
    const json = await probe.inject({
      method: 'POST',
      url: URL_PATH,
      payload: { note: 'x' },
      headers: { authorization: token },
    });
    expect(json.json()).toEqual({ errcode: 400, errmsg: 'unsupported content type: send multipart/form-data' });
    const { body, contentType } = await form([['keywords', 'x']]);
    const multi = await probe.inject({
      method: 'POST',
      url: '/manage-api/sales/querySalesList',
      payload: body,
      headers: { 'content-type': contentType, authorization: token },
    });
    expect(multi.json()).toEqual({ errcode: 400, errmsg: 'unsupported content type: send application/json' });
  });

  describe('a body busboy cannot finish answers 400 naming the problem, never 500, and keeps nothing', () => {
    const B = 'tcProbeBoundary';
    // A file part larger than the 16 KiB the watch keeps of the body's end.
    const content = randomBytes(20 * 1024);
    const filePart = (b: string) =>
      Buffer.concat([
        Buffer.from(
          `--${b}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhi\r\n--${b}\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
        ),
        content,
        Buffer.from('\r\n'),
      ]);
    const whole = (b: string) => Buffer.concat([filePart(b), Buffer.from(`--${b}--\r\n`)]);
    const send = (body: Buffer, contentType = `multipart/form-data; boundary=${B}`) =>
      probe.inject({
        method: 'POST',
        url: URL_PATH,
        payload: body,
        headers: { 'content-type': contentType, authorization: token },
      });
    const msg = (what: string) => ({ errcode: 400, errmsg: `malformed multipart body: ${what}` });

    it.each([
      ['no closing boundary', () => filePart(B), 'the closing boundary is missing'],
      [
        'a delimiter in place of the closing boundary',
        () => Buffer.concat([filePart(B), Buffer.from(`--${B}\r\n`)]),
        'the closing boundary is missing',
      ],
      [
        'the closing boundary cut after one dash',
        () => Buffer.concat([filePart(B), Buffer.from(`--${B}-`)]),
        'the closing boundary is missing',
      ],
      [
        'another boundary in the body',
        () => whole('somethingElse'),
        'the boundary does not match the Content-Type header',
      ],
      [
        'a longer boundary in the body',
        () => whole(`${B}Longer`),
        'the boundary does not match the Content-Type header',
      ],
      [
        'no delimiter at all',
        () => Buffer.from('just some text'),
        'the boundary does not match the Content-Type header',
      ],
      ['the file part cut in its content', () => filePart(B).subarray(0, -5000), 'a part is truncated'],
      [
        'the file part cut in its headers',
        () => filePart(B).subarray(0, filePart(B).indexOf('filename=')),
        'a part is truncated',
      ],
      [
        'a field cut in its value',
        () => Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhel`),
        'a part is truncated',
      ],
    ])('%s', async (_label, body, what) => {
      const res = await send(body());
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(msg(what));
      expect(tempFiles()).toEqual([]);
    });

    it('a Content-Type without a usable boundary (none, empty, longer than the parser takes)', async () => {
      for (const contentType of [
        'multipart/form-data',
        'multipart/form-data; boundary=',
        `multipart/form-data; boundary=${'x'.repeat(300)}`,
      ]) {
        const res = await send(whole(B), contentType);
        expect(res.json(), contentType).toEqual(msg('the Content-Type header names no usable boundary'));
      }
      expect(tempFiles()).toEqual([]);
    });

    it('takes the same body whole, its boundary quoted or not', async () => {
      for (const contentType of [`multipart/form-data; boundary=${B}`, `multipart/form-data; boundary="${B}"`]) {
        const res = await send(whole(B), contentType);
        expect(res.json().data, contentType).toMatchObject({
          note: 'hi',
          files: [{ field: 'file', size: content.length, sha256: sha(content) }],
        });
      }
    });

    it('a client that stops sending before its declared length leaves no temporary file', async () => {
      const port = Number(new URL(await probe.listen({ port: 0, host: '127.0.0.1' })).port);
      const body = filePart(B);
      await new Promise<void>((resolve) => {
        const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
        socket.on('error', () => resolve());
        socket.on('close', () => resolve());
        socket.on('connect', () => {
          socket.write(
            `POST ${URL_PATH} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: multipart/form-data; boundary=${B}\r\nContent-Length: ${body.length + 10_000}\r\n\r\n`,
          );
          socket.write(body);
          setTimeout(() => socket.end(), 200);
        });
        socket.resume();
      });
      for (let i = 0; i < 50 && tempFiles().length > 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(tempFiles()).toEqual([]);
    });
  });

  it('takes a POST without any body as an empty form (the operation says what it misses)', async () => {
    const res = await probe.inject({ method: 'POST', url: URL_PATH, headers: { authorization: token } });
    expect(res.json()).toEqual({
      errcode: 0,
      errmsg: 'success',
      data: { caller: 'admin', note: null, count: null, files: [] },
    });
  });

  it('refuses a caller without a token before reading the body, and a staff user without the permission', async () => {
    const { body, contentType } = await form([['file', { name: 'a.bin', bytes: randomBytes(100) }]]);
    const none = await probe.inject({
      method: 'POST',
      url: URL_PATH,
      payload: body,
      headers: { 'content-type': contentType },
    });
    expect(none.json().errcode).toBe(401);
    const weak = await staffSession(t, { kind: 'platform', permissions: ['sales:read'] });
    const refused = await probe.inject({
      method: 'POST',
      url: URL_PATH,
      payload: body,
      headers: { 'content-type': contentType, authorization: weak.token },
    });
    expect(refused.json()).toEqual({ errcode: 403, errmsg: 'no permission: probe:upload is required' });
    expect(tempFiles()).toEqual([]);
  });
});
