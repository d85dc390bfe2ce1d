import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertOpenApp } from '../../src/platform/auth/open-app.repository.js';
import { sign, signingString } from '../../src/platform/auth/open-signature.js';
import { loadMemberAccount } from '../../src/modules/member/member.repository.js';
import { DOWNLOAD_PATH, PUBLIC_FILE_PATH } from '../../src/platform/storage/index.js';
import { awayFromMinuteEdge } from '../helpers/platform-fixtures.js';
import { createMember, createShop, randomMobile } from '../helpers/factories.js';
import { idCardNumber } from '../member/member-fixtures.js';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { issueFor, staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { FACE_JPEG, facePng } from '../platform/face-images.js';
import { form, pdfBytes, platformDeps, postForm, sha256, type Part } from './storage-fixtures.js';

/** The storage module's own rules on the local store: permissions, scoping, types, chunks, the face check. */
const M = '/manage-api/oss';
const O = '/open-api/oss';
const ALL = ['oss:upload', 'oss:download'];
const APP = { appKey: `oss-${randomBytes(4).toString('hex')}`, appSecret: randomBytes(24).toString('hex') };

let t: TestApp;
let platform: StaffSession;
let merchantA: StaffSession;
let merchantA2: StaffSession;
let shopA: StaffSession;
let merchantB: StaffSession;

beforeAll(async () => {
  t = await createTestApp({ FACE_UPLOAD_RATE_PER_MIN: '4', FILE_FETCH_RATE_PER_MIN: '6' });
  await upsertOpenApp(t.db, { ...APP, name: 'oss test app' });
  platform = await staffSession(t, { kind: 'platform', permissions: ALL });
  merchantA = await staffSession(t, { kind: 'merchant', permissions: ALL });
  merchantA2 = await staffSession(t, { kind: 'merchant', merchantId: merchantA.merchantId!, permissions: ALL });
  shopA = await staffSession(t, {
    kind: 'shop',
    shopId: await createShop(t.db, { merchant_id: merchantA.merchantId! }),
    permissions: ALL,
  });
  merchantB = await staffSession(t, { kind: 'merchant', permissions: ALL });
});
afterAll(() => t?.close());

let ip = 0;
/** A client address of its own, so the per-address face-check limit of one test does not touch another's. */
const nextIp = () => `10.9.${Math.floor(++ip / 250)}.${(ip % 250) + 1}`;

async function upload(
  who: StaffSession | null,
  bytes: Uint8Array,
  name = 'doc.pdf',
  headers: Record<string, string> = {},
) {
  return postForm(t, `${O}/upload`, [['file', { name, bytes }]], { token: who?.token, headers });
}
async function uploaded(who: StaffSession, bytes: Uint8Array = pdfBytes(2000), name = 'doc.pdf') {
  const res = await upload(who, bytes, name);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data as { fileKey: string; fileUrl: string; fileName: string; size: number; contentType: string };
}
/** A file URL fetched without a token, from an address of its own unless one is given (the route is limited per address). */
function fetchFile(fileUrl: string, headers: Record<string, string> = {}, address = nextIp()) {
  const url = new URL(fileUrl);
  return t.app.inject({ method: 'GET', url: url.pathname + url.search, headers, remoteAddress: address });
}
const download = (who: StaffSession, fileKey: unknown) =>
  t.app.inject({
    method: 'POST',
    url: `${M}/download`,
    payload: { fileKey },
    headers: { authorization: `Bearer ${who.token}` },
  });
async function init(who: StaffSession, fileName = 'big.pdf') {
  const res = await t.post(`${M}/multipartFileInit`, { fileName }, who.token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data.uploadId as string;
}
const chunkParts = (fields: Record<string, string>, bytes?: Uint8Array): Part[] => [
  ...Object.entries(fields),
  ...(bytes ? [['file', { name: 'blob', bytes }] as Part] : []),
];
const sendChunk = (who: StaffSession, fields: Record<string, string>, bytes?: Uint8Array) =>
  postForm(t, `${M}/multipartUpload`, chunkParts(fields, bytes), { token: who.token });

function signedHeaders(path: string, body: Buffer | string) {
  const ts = String(Date.now());
  const nonce = randomBytes(12).toString('hex');
  return {
    'x-app-key': APP.appKey,
    'x-timestamp': ts,
    'x-nonce': nonce,
    'x-sign': sign(APP.appSecret, signingString('POST', path, ts, nonce, body)),
  };
}

describe('rejection matrix', () => {
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${M}/multipartFileInit`,
    permission: 'oss:upload',
    validBody: () => ({ fileName: 'a.pdf' }),
    badInputs: [
      { body: () => ({}), field: 'fileName', rule: /fileName is required/ },
      { body: () => ({ fileName: 'x'.repeat(256) }), field: 'fileName' },
      { body: () => ({ fileName: 'dir/a.pdf' }), field: 'fileName', rule: /not a path/ },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${M}/download`,
    permission: 'oss:download',
    validBody: () => ({ fileKey: '2026/01/01/' + '0'.repeat(32) }),
    badInputs: [
      { body: () => ({}), field: 'fileKey', rule: /fileKey is required/ },
      { body: () => ({ fileKey: 'x'.repeat(513) }), field: 'fileKey' },
      { body: () => ({ fileKey: '../../etc/passwd' }), field: 'fileKey', rule: /fileKey is invalid/ },
    ],
  });
  // A multipart route: the matrix's token and permission checks come before the body is read.
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${M}/multipartUpload`,
    permission: 'oss:upload',
    validBody: () => ({}),
  });

  it('open-channel uploads: no token or signature → 401, a member token → 401, staff without oss:upload → 403', async () => {
    const member = await issueFor(t, (await loadMemberAccount(t.db, await createMember(t.db)))!, 'mp');
    const weak = await staffSession(t, { kind: 'platform', permissions: ['oss:download'] });
    for (const path of ['/upload', '/uploadBase64']) {
      const call = (token?: string) =>
        path === '/upload'
          ? postForm(t, `${O}${path}`, [['file', { name: 'a.pdf', bytes: pdfBytes(100) }]], { token })
          : t.post(`${O}${path}`, { fileName: 'a.pdf', content: pdfBytes(100).toString('base64') }, token);
      expect((await call()).body.errcode, path).toBe(401);
      expect((await call(member.accessToken)).body.errcode, path).toBe(401);
      expect((await call(weak.token)).body).toEqual({ errcode: 403, errmsg: 'no permission: oss:upload is required' });
    }
  });

  it('multipartUpload names the bad field: missing, not a number, out of range', async () => {
    const uploadId = await init(platform);
    const ok = { uploadId, totalChunks: '2', chunkNumber: '1', fileKey: 'k' };
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ totalChunks: '2', chunkNumber: '1', fileKey: 'k' }, /uploadId is required/],
      [{ ...ok, chunkNumber: 'one' }, /chunkNumber/],
      [{ ...ok, chunkNumber: '0' }, /chunkNumber/],
      [{ ...ok, totalChunks: '10001' }, /totalChunks/],
      [{ ...ok, chunkNumber: '3' }, /chunkNumber is out of range: must be between 1 and totalChunks \(2\)/],
      [{ uploadId, totalChunks: '2', chunkNumber: '1' }, /fileKey is required/],
    ];
    for (const [fields, rule] of cases) {
      const res = await sendChunk(platform, fields, pdfBytes(100));
      expect(res.body.errcode, JSON.stringify(fields)).toBe(400);
      expect(res.body.errmsg).toMatch(rule);
    }
    expect((await sendChunk(platform, ok)).body).toEqual({
      errcode: 400,
      errmsg: 'file is required: send it as the multipart part named "file"',
    });
  });
});

describe('chunked uploads', () => {
  it("answers 400 for an unknown uploadId and 403 for another account's upload, and logs the failure", async () => {
    const unknown = await sendChunk(
      platform,
      { uploadId: 'f'.repeat(32), totalChunks: '1', chunkNumber: '1', fileKey: 'k' },
      pdfBytes(100),
    );
    expect(unknown.body).toEqual({
      errcode: 400,
      errmsg: 'uploadId is unknown or has expired: start again with multipartFileInit',
    });
    const failed = await t.db
      .selectFrom('operate_log')
      .select(['success', 'errcode', 'module', 'action'])
      .where('path', '=', `${M}/multipartUpload`)
      .where('success', '=', false)
      .execute();
    expect(failed).toContainEqual({ success: false, errcode: 400, module: '对象存储', action: '分片上传' });
    const uploadId = await init(merchantA);
    const foreign = await sendChunk(
      merchantA2,
      { uploadId, totalChunks: '1', chunkNumber: '1', fileKey: 'k' },
      pdfBytes(100),
    );
    expect(foreign.body).toEqual({ errcode: 403, errmsg: 'the upload was started by another account' });
  });

  it("takes the chunk's fields from the query string as well (Spring binds request parameters from both)", async () => {
    const uploadId = await init(platform);
    const query = new URLSearchParams({ uploadId, totalChunks: '1', chunkNumber: '1', fileKey: 'q/a.pdf' }).toString();
    const res = await postForm(
      t,
      `${M}/multipartUpload?${query}`,
      chunkParts({ fileKey: 'form/a.pdf' }, pdfBytes(200)),
      { token: platform.token },
    );
    expect(res.body.errcode, res.body.errmsg).toBe(0);
    expect(res.body.data).toMatchObject({ completed: true, fileName: 'big.pdf' });
  });

  it('keeps totalChunks and fileKey as the first chunk set them', async () => {
    const uploadId = await init(platform);
    expect(
      (
        await sendChunk(
          platform,
          { uploadId, totalChunks: '3', chunkNumber: '2', fileKey: 'mine/a.pdf' },
          randomBytes(100),
        )
      ).body.errcode,
    ).toBe(0);
    const total = await sendChunk(
      platform,
      { uploadId, totalChunks: '4', chunkNumber: '1', fileKey: 'mine/a.pdf' },
      pdfBytes(100),
    );
    expect(total.body).toEqual({
      errcode: 400,
      errmsg: 'totalChunks must be 3 for this upload, as its first chunk said',
    });
    const key = await sendChunk(
      platform,
      { uploadId, totalChunks: '3', chunkNumber: '1', fileKey: 'other.pdf' },
      pdfBytes(100),
    );
    expect(key.body).toEqual({
      errcode: 400,
      errmsg: 'fileKey differs from the one the earlier chunks of this upload carried',
    });
  });

  it('sniffs chunk 1: an executable is refused with 1_011_000_001 whatever its name', async () => {
    const uploadId = await init(platform, 'report.pdf');
    const exe = Buffer.concat([
      Buffer.from('MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff\x00\x00', 'latin1'),
      randomBytes(4000),
    ]);
    exe.write('PE\0\0', 0x80, 'latin1');
    exe.writeUInt32LE(0x80, 0x3c);
    const res = await sendChunk(platform, { uploadId, totalChunks: '1', chunkNumber: '1', fileKey: 'report.pdf' }, exe);
    expect(res.body.errcode).toBe(1_011_000_001);
  });

  it('completes exactly once when every chunk arrives at the same time; a chunk sent again afterwards gets the answer, different bytes 409', async () => {
    const file = pdfBytes(64 * 1024);
    const parts = Array.from({ length: 8 }, (_, i) => file.subarray(i * 8192, (i + 1) * 8192));
    const uploadId = await init(platform, 'parallel.pdf');
    const answers = await Promise.all(
      parts.map((p, i) =>
        sendChunk(platform, { uploadId, totalChunks: '8', chunkNumber: String(i + 1), fileKey: 'p' }, p),
      ),
    );
    expect(answers.map((a) => a.body.errcode)).toEqual(parts.map(() => 0));
    const completed = answers.filter((a) => a.body.data.completed);
    expect(completed).toHaveLength(1);
    // whichever chunk the client reads last, it holds the file's URL
    expect(new Set(answers.map((a) => a.body.data.fileUrl))).toEqual(new Set([completed[0].body.data.fileUrl]));
    const { fileKey } = completed[0].body.data;
    expect(await t.db.selectFrom('file_object').select('sha256').where('file_key', '=', fileKey).execute()).toEqual([
      { sha256: sha256(file) },
    ]);
    const again = await sendChunk(platform, { uploadId, totalChunks: '8', chunkNumber: '3', fileKey: 'p' }, parts[2]);
    expect(again.body.data).toMatchObject({ completed: true, fileKey, receivedChunks: 8 });
    const differs = await sendChunk(
      platform,
      { uploadId, totalChunks: '8', chunkNumber: '3', fileKey: 'p' },
      randomBytes(8192),
    );
    expect(differs.body.errcode).toBe(409);
  });
});

describe('every chunk answers the file name and URL (spec A 4.9 rule 1)', () => {
  const file = pdfBytes(40 * 1024);
  const piece = (n: number) => file.subarray((n - 1) * 10 * 1024, n * 10 * 1024);
  async function send(uploadId: string, n: number) {
    const res = await sendChunk(
      platform,
      { uploadId, totalChunks: '4', chunkNumber: String(n), fileKey: 'every.pdf' },
      piece(n),
    );
    expect(res.body.errcode, res.body.errmsg).toBe(0);
    return res.body.data as {
      fileName: string;
      fileUrl: string;
      fileKey: string | null;
      completed: boolean;
      receivedChunks: number;
    };
  }
  const keyOf = (fileUrl: string) => new URL(fileUrl).searchParams.get('fileKey')!;

  it.each([
    { label: 'in order', order: [1, 2, 3, 4], completed: [false, false, false, true] },
    {
      label: 'out of order, chunks sent again before and after completion',
      order: [3, 1, 1, 4, 2, 2, 3],
      completed: [false, false, false, false, true, true, true],
    },
  ])(
    '$label: one fileUrl in every answer, unknown until the file is whole, then serving it',
    async ({ order, completed }) => {
      const uploadId = await init(platform, 'every.pdf');
      const answers = [];
      for (const n of order) {
        const a = await send(uploadId, n);
        answers.push(a);
        if (!a.completed) {
          // as for an unknown file: the token-free URL and the staff download of its key
          expect((await fetchFile(a.fileUrl)).json()).toEqual({ errcode: 404, errmsg: 'file not found' });
          expect((await download(platform, keyOf(a.fileUrl))).json()).toEqual({
            errcode: 404,
            errmsg: 'file not found',
          });
        }
      }
      const { fileUrl } = answers[0];
      expect(fileUrl).toBe(`http://localhost:80${PUBLIC_FILE_PATH}?fileKey=${encodeURIComponent(keyOf(fileUrl))}`);
      expect(answers.map((a) => [a.completed, a.fileName, a.fileUrl])).toEqual(
        completed.map((c) => [c, 'every.pdf', fileUrl]),
      );
      // the other fields keep telling what is stored: null until the file is whole
      expect(answers.map((a) => a.fileKey)).toEqual(completed.map((c) => (c ? keyOf(fileUrl) : null)));
      const served = await fetchFile(fileUrl);
      expect(served.statusCode).toBe(200);
      expect(served.headers['content-type']).toBe('application/pdf');
      expect(sha256(served.rawPayload)).toBe(sha256(file));
    },
  );

  it('gives every upload a URL of its own', async () => {
    const urls = [];
    for (let i = 0; i < 3; i++) urls.push((await send(await init(platform, 'every.pdf'), 2)).fileUrl);
    expect(new Set(urls).size).toBe(3);
  });
});

describe('uploads and types', () => {
  it('sniffs the content, not the name or declared type: text is stored as text, markup and executables are refused', async () => {
    const text = await uploaded(platform, Buffer.from('名称,金额\n门票,100\n'), 'report.csv');
    expect(text.contentType).toBe('text/csv');
    const got = await download(platform, text.fileKey);
    expect(got.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(got.headers['x-content-type-options']).toBe('nosniff');
    for (const [name, bytes] of [
      ['page.pdf', Buffer.from('<!doctype html><script>alert(1)</script>')],
      ['image.png', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')],
      ['run.txt', Buffer.from('#!/bin/sh\nrm -rf /\n')],
      ['data.pdf', Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), randomBytes(200)])],
      ['blob.bin', randomBytes(3000)],
    ] as const) {
      const res = await upload(platform, bytes, name);
      expect(res.body.errcode, name).toBe(1_011_000_001);
      expect(res.body.errmsg).toMatch(/^this type of file cannot be uploaded/);
    }
    expect((await upload(platform, Buffer.alloc(0), 'empty.pdf')).body).toEqual({
      errcode: 400,
      errmsg: 'the file is empty',
    });
  });

  it('accepts a signed open-app call over the multipart body and over base64 JSON', async () => {
    const bytes = pdfBytes(3000);
    const { body, contentType } = await form([['file', { name: 'signed.pdf', bytes }]]);
    const res = await t.app.inject({
      method: 'POST',
      url: `${O}/upload`,
      payload: body,
      headers: { 'content-type': contentType, ...signedHeaders(`${O}/upload`, body) },
    });
    expect(res.json().errcode, res.json().errmsg).toBe(0);
    const json = JSON.stringify({ fileName: 'signed.pdf', content: bytes.toString('base64') });
    const b64 = await t.app.inject({
      method: 'POST',
      url: `${O}/uploadBase64`,
      payload: json,
      headers: { 'content-type': 'application/json', ...signedHeaders(`${O}/uploadBase64`, json) },
    });
    expect(b64.json().errcode, b64.json().errmsg).toBe(0);
    const record = await t.db
      .selectFrom('file_object')
      .select(['uploader_kind', 'merchant_id', 'source'])
      .where('file_key', '=', b64.json().data.fileKey)
      .executeTakeFirstOrThrow();
    expect(record).toEqual({ uploader_kind: 'openApp', merchant_id: null, source: 'base64' });
  });

  it('takes base64 as a data: URL or in the URL-safe alphabet', async () => {
    const png = facePng(80, 80, 3);
    for (const content of [`data:image/png;base64,${png.toString('base64')}`, png.toString('base64url')]) {
      const res = await t.post(`${O}/uploadBase64`, { fileName: 'p.png', content }, platform.token);
      expect(res.body.errcode, res.body.errmsg).toBe(0);
      expect(res.body.data).toMatchObject({ contentType: 'image/png', size: png.length });
    }
  });

  it('answers a file URL under the request origin (FILE_BASE_URL when set) that needs no token; the staff download keeps working', async () => {
    const file = await uploaded(platform);
    expect(file.fileUrl).toBe(`http://localhost:80${PUBLIC_FILE_PATH}?fileKey=${encodeURIComponent(file.fileKey)}`);
    const member = await issueFor(t, (await loadMemberAccount(t.db, await createMember(t.db)))!, 'mp');
    // No token, a member's token, a stale one: the key is what authorises.
    for (const authorization of [undefined, `Bearer ${member.accessToken}`, 'Bearer expired-or-garbage']) {
      const res = await fetchFile(file.fileUrl, authorization ? { authorization } : {});
      expect(res.statusCode, authorization).toBe(200);
      expect(res.headers['content-length']).toBe(String(file.size));
    }
    const res = await t.app.inject({
      method: 'GET',
      url: `${DOWNLOAD_PATH}?fileKey=${encodeURIComponent(file.fileKey)}`,
      headers: { authorization: `Bearer ${platform.token}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-length']).toBe(String(file.size));
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(
      (
        await t.app.inject({ method: 'GET', url: `${DOWNLOAD_PATH}?fileKey=${encodeURIComponent(file.fileKey)}` })
      ).json().errcode,
    ).toBe(401);
  });
});

describe('the token-free file route', () => {
  const get = (query: string) =>
    t.app.inject({ method: 'GET', url: `${PUBLIC_FILE_PATH}${query}`, remoteAddress: nextIp() });

  it('is served on the open channel only', async () => {
    const file = await uploaded(platform);
    const { search } = new URL(file.fileUrl);
    for (const prefix of ['/manage-api', '/app-api', '/mp-api']) {
      const res = await t.app.inject({ method: 'GET', url: `${prefix}/oss/file${search}` });
      expect(res.json(), prefix).toMatchObject({ errcode: 404 });
    }
  });

  it('refuses malformed keys (path traversal among them) with 400 and answers 404 for unknown keys or a lost object', async () => {
    const malformed = [
      '',
      '?fileKey=',
      '?fileKey=..%2F..%2Fetc%2Fpasswd',
      '?fileKey=%2Fetc%2Fpasswd',
      '?fileKey=2026%2F01%2F01%2F..%2F..%2F..%2Fpackage.json',
      `?fileKey=2026%2F01%2F01%2F${'a'.repeat(32)}%00`,
      `?fileKey=2026%5C01%5C01%5C${'a'.repeat(32)}`,
      `?fileKey=2026%2F01%2F01%2F${'A'.repeat(32)}`,
      '?fileKey=C%3A%2Fx',
      `?fileKey=2026%2F01%2F01%2F${'a'.repeat(32)}.html`,
      `?fileKey=${'x'.repeat(600)}`,
      '?fileKey=.multipart%2Fabc',
    ];
    for (const query of malformed) {
      const res = await get(query);
      expect(res.json().errcode, query).toBe(400);
      expect(res.headers['cache-control'] ?? '', query).not.toMatch(/max-age/);
    }
    const unknown = await get(`?fileKey=2026%2F01%2F01%2F${'a'.repeat(32)}`);
    expect(unknown.json()).toEqual({ errcode: 404, errmsg: 'file not found' });
    expect(unknown.headers['cache-control']).toBe('no-store');
    const file = await uploaded(platform);
    const { deps, close } = await platformDeps(t);
    try {
      await deps.storage.objects.remove(file.fileKey);
    } finally {
      await close();
    }
    expect((await fetchFile(file.fileUrl)).json()).toEqual({ errcode: 404, errmsg: 'file not found' });
  });

  it('serves images and PDF inline, everything else as an attachment, never as HTML, with the name safely encoded', async () => {
    const png = facePng(40, 40, 5);
    const b64 = await t.post(
      `${O}/uploadBase64`,
      { fileName: `a "quoted" (x)'s 名;.png`, content: png.toString('base64') },
      platform.token,
    );
    expect(b64.body.errcode, b64.body.errmsg).toBe(0);
    const image = b64.body.data as { fileUrl: string };
    const shown = await fetchFile(image.fileUrl);
    expect(shown.headers['content-type']).toBe('image/png');
    expect(shown.headers['content-disposition']).toBe(
      `inline; filename="a _quoted_ (x)'s _;.png"; filename*=UTF-8''a%20%22quoted%22%20%28x%29%27s%20%E5%90%8D%3B.png`,
    );
    expect(shown.headers['x-content-type-options']).toBe('nosniff');
    const csv = await uploaded(platform, Buffer.from('名称,金额\n门票,100\n'), 'report.csv');
    const text = await fetchFile(csv.fileUrl);
    expect(text.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(text.headers['content-disposition']).toMatch(/^attachment; filename="report.csv"/);
    // A type uploads never accept (a stored record of another origin): raw bytes, as an attachment.
    const { deps, close } = await platformDeps(t);
    let html: string;
    try {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'tc-file-'));
      writeFileSync(path.join(dir, 'x'), '<script>alert(1)</script>');
      const record = await deps.storage.saveFile(
        { path: path.join(dir, 'x'), size: 25, sha256: sha256(Buffer.from('<script>alert(1)</script>')) },
        {
          fileName: 'page.html',
          contentType: 'text/html',
          source: 'test',
          owner: { kind: null, id: null, ip: null, merchantId: null, shopId: null },
        },
      );
      rmSync(dir, { recursive: true, force: true });
      html = deps.storage.urlOf(record.fileKey, 'http://localhost:80');
    } finally {
      await close();
    }
    const served = await fetchFile(html);
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('application/octet-stream');
    expect(served.headers['content-disposition']).toMatch(/^attachment; filename="page.html"/);
  });

  it('is limited per client address', async () => {
    const file = await uploaded(platform);
    await awayFromMinuteEdge();
    const address = nextIp();
    // errcode 0 for the bytes (HTTP 200 for every handled outcome, docs/architecture.md §5.12)
    const errcodeOf = (res: Awaited<ReturnType<typeof fetchFile>>) =>
      String(res.headers['content-type']).includes('json') ? res.json().errcode : 0;
    const codes = [];
    for (let i = 0; i < 7; i++) codes.push(errcodeOf(await fetchFile(file.fileUrl, {}, address)));
    expect(codes).toEqual([0, 0, 0, 0, 0, 0, 429]);
    const limited = await fetchFile(file.fileUrl, { 'if-none-match': `"${'0'.repeat(64)}"` }, address);
    expect(limited.json().errcode).toBe(429);
    // A cache in front must not keep the refusal in place of the file.
    expect(limited.headers['cache-control']).toBe('no-store');
    expect(errcodeOf(await fetchFile(file.fileUrl, {}, nextIp()))).toBe(0);
    // An IPv6 client counts by its /64: new addresses of the same block do not reset the count.
    const block = `2001:db8:${(Date.now() % 65536).toString(16)}:7`;
    const v6 = [];
    for (let i = 1; i <= 7; i++) v6.push(errcodeOf(await fetchFile(file.fileUrl, {}, `${block}::${i}`)));
    expect(v6).toEqual([0, 0, 0, 0, 0, 0, 429]);
  });
});

describe('downloads are authorised through the file record', () => {
  it("platform staff download everything; merchant staff their merchant's files; shop staff their shop's; unknown keys 404", async () => {
    const ofMerchantA = await uploaded(merchantA);
    const ofShopA = await uploaded(shopA);
    const ofPlatform = await uploaded(platform);
    const matrix: Array<[StaffSession, string, number]> = [
      [platform, ofMerchantA.fileKey, 0],
      [merchantA2, ofMerchantA.fileKey, 0],
      [merchantB, ofMerchantA.fileKey, 403],
      [shopA, ofMerchantA.fileKey, 403],
      [merchantA, ofShopA.fileKey, 0],
      [shopA, ofShopA.fileKey, 0],
      [merchantB, ofShopA.fileKey, 403],
      [platform, ofPlatform.fileKey, 0],
      [merchantA, ofPlatform.fileKey, 403],
    ];
    for (const [who, key, errcode] of matrix) {
      const res = await download(who, key);
      if (errcode === 0) expect(res.statusCode, `${who.username} ${key}`).toBe(200);
      else expect(res.json(), `${who.username} ${key}`).toMatchObject({ errcode });
    }
    expect((await download(platform, `2026/01/01/${'a'.repeat(32)}`)).json()).toEqual({
      errcode: 404,
      errmsg: 'file not found',
    });
  });
});

describe('uploadWithFaceCheck', () => {
  it("refuses a form posted from another site's page (a browser sends multipart cross-site without asking)", async () => {
    const before = await t.db
      .selectFrom('file_object')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    const res = await postForm(t, `${O}/uploadWithFaceCheck`, [['file', { name: 'x.jpg', bytes: FACE_JPEG }]], {
      remoteAddress: nextIp(),
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    expect(res.body).toEqual({ errcode: 403, errmsg: 'a form posted from another site is refused' });
    const after = await t.db
      .selectFrom('file_object')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('is login-free, keeps a face photo the face service can read back through its URL', async () => {
    const res = await postForm(t, `${O}/uploadWithFaceCheck`, [['file', { name: '自拍.jpg', bytes: FACE_JPEG }]], {
      remoteAddress: nextIp(),
    });
    expect(res.body.errcode, res.body.errmsg).toBe(0);
    expect(res.body.data).toMatchObject({ fileName: '自拍.jpg', contentType: 'image/jpeg', size: FACE_JPEG.length });
    const record = await t.db
      .selectFrom('file_object')
      .select(['uploader_kind', 'uploader_ip', 'source'])
      .where('file_key', '=', res.body.data.fileKey)
      .executeTakeFirstOrThrow();
    expect(record).toMatchObject({ uploader_kind: null, source: 'face-check' });
    const { fileUrl, fileKey } = res.body.data;
    expect(fileUrl).toBe(`http://localhost:80${PUBLIC_FILE_PATH}?fileKey=${encodeURIComponent(fileKey)}`);
    const { deps, close } = await platformDeps(t);
    try {
      // Read from storage by the resolver, not over HTTP (the origin may be unreachable from the
      // service, and loopback addresses are refused to photo URLs): the new URL and the old one.
      expect(await deps.face.detectFace(fileUrl)).toEqual({ faceCount: 1 });
      expect(
        await deps.face.detectFace(`http://localhost:80${DOWNLOAD_PATH}?fileKey=${encodeURIComponent(fileKey)}`),
      ).toEqual({ faceCount: 1 });
      await expect(deps.face.detectFace(fileUrl.replace(/[0-9a-f]{32}$/, 'b'.repeat(32)))).rejects.toMatchObject({
        errcode: 1_025_000_003,
      });
    } finally {
      await close();
    }
    // The mini program shows it back without a token.
    expect(sha256((await fetchFile(fileUrl)).rawPayload)).toBe(sha256(FACE_JPEG));
  });

  it('enrols a member contact from the fileUrl it answered (read from storage)', async () => {
    const res = await postForm(t, `${O}/uploadWithFaceCheck`, [['file', { name: 'contact.jpg', bytes: FACE_JPEG }]], {
      remoteAddress: nextIp(),
    });
    expect(res.body.errcode, res.body.errmsg).toBe(0);
    const member = await issueFor(t, (await loadMemberAccount(t.db, await createMember(t.db)))!, 'mp');
    const identityNo = idCardNumber();
    const add = await t.post(
      '/mp-api/memberContacts/addMemberContacts',
      { name: '李四', phone: randomMobile(), identityNo, facePhoto: res.body.data.fileUrl },
      member.accessToken,
    );
    expect(add.body, JSON.stringify(add.body)).toEqual({ errcode: 0, errmsg: 'success' });
    const face = await t.db
      .selectFrom('member_face')
      .select(['person_id', 'photo_url'])
      .where('person_id', '=', identityNo)
      .execute();
    expect(face).toEqual([{ person_id: identityNo, photo_url: res.body.data.fileUrl }]);
  });

  it('answers errcode 0 with every field null and stores nothing when the request carries no file (the part is optional, spec A 4.9)', async () => {
    const before = await t.db
      .selectFrom('file_object')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    const NONE = {
      errcode: 0,
      errmsg: 'success',
      data: { fileName: null, fileUrl: null, fileKey: null, size: null, contentType: null },
    };
    const forms: Array<[string, Part[]]> = [
      ['another field only', [['note', 'x']]],
      ['no part at all', []],
      // what a browser sends for a file input left empty
      ['an empty nameless file part', [['file', { name: '', bytes: new Uint8Array(0) }]]],
      ['a file under another part name', [['photo', { name: 'me.jpg', bytes: FACE_JPEG }]]],
    ];
    for (const [label, parts] of forms) {
      const res = await postForm(t, `${O}/uploadWithFaceCheck`, parts, { remoteAddress: nextIp() });
      expect(res.body, label).toEqual(NONE);
    }
    // a POST with no body at all, as a client without a file may send it
    const bare = await t.app.inject({ method: 'POST', url: `${O}/uploadWithFaceCheck`, remoteAddress: nextIp() });
    expect(bare.json()).toEqual(NONE);
    const after = await t.db
      .selectFrom('file_object')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    const tmp = path.join(t.config.dataDir, 'tmp');
    expect(existsSync(tmp) ? readdirSync(tmp) : []).toEqual([]);
    // a named file without bytes is still an empty file, and a body that is not a form still refused
    const empty = await postForm(
      t,
      `${O}/uploadWithFaceCheck`,
      [['file', { name: 'me.jpg', bytes: new Uint8Array(0) }]],
      { remoteAddress: nextIp() },
    );
    expect(empty.body).toEqual({ errcode: 400, errmsg: 'the file is empty' });
    const json = await t.app.inject({
      method: 'POST',
      url: `${O}/uploadWithFaceCheck`,
      payload: { file: 'x' },
      remoteAddress: nextIp(),
    });
    expect(json.json()).toEqual({ errcode: 400, errmsg: 'unsupported content type: send multipart/form-data' });
  });

  it('still checks the file when there is one, and counts calls without a file against the per-address limit (it applies before the body is read)', async () => {
    await awayFromMinuteEdge();
    const address = nextIp();
    const codes = [];
    for (let i = 0; i < 3; i++)
      codes.push(
        (await postForm(t, `${O}/uploadWithFaceCheck`, [['note', 'x']], { remoteAddress: address })).body.errcode,
      );
    codes.push(
      (
        await postForm(t, `${O}/uploadWithFaceCheck`, [['file', { name: 'dot.png', bytes: facePng(10, 10) }]], {
          remoteAddress: address,
        })
      ).body.errcode,
    );
    codes.push(
      (
        await postForm(t, `${O}/uploadWithFaceCheck`, [['file', { name: 'me.jpg', bytes: FACE_JPEG }]], {
          remoteAddress: address,
        })
      ).body.errcode,
    );
    expect(codes).toEqual([0, 0, 0, 1_025_000_001, 429]);
  });

  it('refuses an image without a face (1_025_000_001), and beyond the limit per address (429) before reading', async () => {
    const address = nextIp();
    const tiny = await postForm(
      t,
      `${O}/uploadWithFaceCheck`,
      [['file', { name: 'dot.png', bytes: facePng(10, 10) }]],
      { remoteAddress: address },
    );
    expect(tiny.body).toEqual({ errcode: 1_025_000_001, errmsg: 'no face found in the image' });
    await awayFromMinuteEdge();
    const limited = nextIp();
    const codes = [];
    for (let i = 0; i < 5; i++)
      codes.push(
        (
          await postForm(t, `${O}/uploadWithFaceCheck`, [['file', { name: 'a.jpg', bytes: FACE_JPEG }]], {
            remoteAddress: limited,
          })
        ).body.errcode,
      );
    expect(codes).toEqual([0, 0, 0, 0, 429]);
    // Refused before the body is read: a malformed body still answers 429, not 400.
    const garbage = await t.app.inject({
      method: 'POST',
      url: `${O}/uploadWithFaceCheck`,
      payload: 'not multipart',
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      remoteAddress: limited,
    });
    expect(garbage.json().errcode).toBe(429);
  });
});
