import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStorage } from '../../src/platform/storage/index.js';
import { createMultipartService } from '../../src/modules/storage/multipart.service.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { FACE_JPEG, facePng } from '../platform/face-images.js';
import { MiB, pdfBytes, postForm, sha256, startS3, type S3Server } from './storage-fixtures.js';

const M = '/manage-api/oss';
const O = '/open-api/oss';
const LIMIT = 6 * MiB;

/**
 * The integration suite every storage backend passes (the issue's acceptance): run once on the local
 * folder and once on an S3-compatible server started on loopback.
 */
export function storageBackendSuite(backend: 'local' | 's3'): void {
  let t: TestApp;
  let s3: S3Server | null = null;
  let staff: StaffSession;

  beforeAll(async () => {
    s3 = backend === 's3' ? await startS3() : null;
    t = await createTestApp({ UPLOAD_MAX_BYTES: String(LIMIT), ...(s3?.env ?? {}) });
    staff = await staffSession(t, { kind: 'platform', permissions: ['oss:upload', 'oss:download'] });
  });
  afterAll(async () => {
    await t?.close();
    await s3?.close();
  });

  const tempFiles = () => {
    const dir = path.join(t.config.dataDir, 'tmp');
    return existsSync(dir) ? readdirSync(dir) : [];
  };
  const fileRows = async () =>
    Number(
      (
        await t.db
          .selectFrom('file_object')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const download = (fileKey: string) =>
    t.app.inject({
      method: 'POST',
      url: `${M}/download`,
      payload: { fileKey },
      headers: { authorization: `Bearer ${staff.token}` },
    });
  async function init(fileName: string) {
    const res = await t.post(`${M}/multipartFileInit`, { fileName }, staff.token);
    expect(res.body.errcode, res.body.errmsg).toBe(0);
    return res.body.data.uploadId as string;
  }
  const chunk = (uploadId: string, n: number, total: number, bytes: Uint8Array, fileKey = 'client/big.pdf') =>
    postForm(
      t,
      `${M}/multipartUpload`,
      [
        ['uploadId', uploadId],
        ['totalChunks', String(total)],
        ['chunkNumber', String(n)],
        ['fileKey', fileKey],
        ['file', { name: 'blob', bytes }],
      ],
      { token: staff.token },
    );

  /** A file URL fetched as a browser's <img> or the mini program does: no token, no signature. */
  const fetchUrl = (fileUrl: string, headers: Record<string, string> = {}) => {
    const url = new URL(fileUrl);
    return t.app.inject({ method: 'GET', url: url.pathname + url.search, headers });
  };

  describe(`${backend} storage`, () => {
    it('answers, from every upload, a fileUrl anyone may fetch without a token: the same bytes and headers, 304 when unchanged', async () => {
      const pdf = pdfBytes(200 * 1024);
      const poster = pdfBytes(5 * MiB + 1000);
      const logo = facePng(60, 60, 2);
      const uploadId = await init('海报 poster.pdf');
      const first = (await chunk(uploadId, 1, 2, poster.subarray(0, 5 * MiB))).body;
      const early = await fetchUrl(first.data.fileUrl);
      expect(early.json()).toEqual({ errcode: 404, errmsg: 'file not found' });
      const chunked = [first, (await chunk(uploadId, 2, 2, poster.subarray(5 * MiB))).body];
      // The first chunk already answers the URL; until the last one arrives it answers as for an unknown file.
      expect(chunked[0].data).toMatchObject({
        completed: false,
        fileName: '海报 poster.pdf',
        fileUrl: chunked[1].data.fileUrl,
        fileKey: null,
      });
      const answers: Array<[string, { errcode: number; errmsg: string; data?: any }, Buffer, string, string]> = [
        [
          'upload',
          (await postForm(t, `${O}/upload`, [['file', { name: '票据 (1).pdf', bytes: pdf }]], { token: staff.token }))
            .body,
          pdf,
          'application/pdf',
          '票据 (1).pdf',
        ],
        [
          'uploadBase64',
          (await t.post(`${O}/uploadBase64`, { fileName: 'logo.png', content: logo.toString('base64') }, staff.token))
            .body,
          logo,
          'image/png',
          'logo.png',
        ],
        [
          'uploadWithFaceCheck',
          (await postForm(t, `${O}/uploadWithFaceCheck`, [['file', { name: 'me.jpg', bytes: FACE_JPEG }]])).body,
          FACE_JPEG,
          'image/jpeg',
          'me.jpg',
        ],
        ['multipartUpload', chunked[1], poster, 'application/pdf', '海报 poster.pdf'],
      ];
      for (const [route, answer, bytes, type, name] of answers) {
        expect(answer.errcode, `${route}: ${answer.errmsg}`).toBe(0);
        const { fileUrl, fileKey } = answer.data;
        expect(fileUrl, route).toBe(`http://localhost:80/open-api/oss/file?fileKey=${encodeURIComponent(fileKey)}`);
        const res = await fetchUrl(fileUrl);
        expect(res.statusCode, route).toBe(200);
        expect(sha256(res.rawPayload), route).toBe(sha256(bytes));
        expect(res.headers, route).toMatchObject({
          'content-type': type,
          'content-length': String(bytes.length),
          etag: `"${sha256(bytes)}"`,
          'cache-control': 'private, max-age=31536000, immutable',
          'x-content-type-options': 'nosniff',
          'content-disposition': `inline; filename="${name.replace(/[^\x20-\x7e]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name).replace(/[()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`,
        });
        const again = await fetchUrl(fileUrl, { 'if-none-match': `"${sha256(bytes)}"` });
        expect(again.statusCode, route).toBe(304);
        expect(again.rawPayload.length, route).toBe(0);
        expect(again.headers, route).toMatchObject({
          etag: `"${sha256(bytes)}"`,
          'cache-control': 'private, max-age=31536000, immutable',
        });
        expect(again.headers['content-length'], route).toBeUndefined();
        // Another version the client holds is no match: the bytes again.
        expect((await fetchUrl(fileUrl, { 'if-none-match': '"0000"' })).statusCode, route).toBe(200);
        // The staff download keeps working for the same key.
        expect(sha256((await download(fileKey)).rawPayload), route).toBe(sha256(bytes));
        // Ranges, as players seek (iOS plays a video only from a server that answers them).
        const size = bytes.length;
        expect(res.headers['accept-ranges'], route).toBe('bytes');
        const mid = await fetchUrl(fileUrl, { range: 'bytes=10-99' });
        expect(mid.statusCode, route).toBe(206);
        expect(mid.headers, route).toMatchObject({
          'content-range': `bytes 10-99/${size}`,
          'content-length': '90',
          etag: `"${sha256(bytes)}"`,
        });
        expect(Buffer.compare(mid.rawPayload, bytes.subarray(10, 100)), route).toBe(0);
        const tail = await fetchUrl(fileUrl, { range: 'bytes=-20' });
        expect(tail.headers['content-range'], route).toBe(`bytes ${size - 20}-${size - 1}/${size}`);
        expect(Buffer.compare(tail.rawPayload, bytes.subarray(size - 20)), route).toBe(0);
        const open = await fetchUrl(fileUrl, { range: `bytes=${size - 5}-${size + 100}` });
        expect(Buffer.compare(open.rawPayload, bytes.subarray(size - 5)), route).toBe(0);
        const past = await fetchUrl(fileUrl, { range: `bytes=${size}-` });
        expect(past.statusCode, route).toBe(416);
        expect(past.headers['content-range'], route).toBe(`bytes */${size}`);
        // HEAD: the same headers, no bytes
        const head = await t.app.inject({ method: 'HEAD', url: new URL(fileUrl).pathname + new URL(fileUrl).search });
        expect(head.statusCode, route).toBe(200);
        expect(head.headers, route).toMatchObject({
          'content-length': String(size),
          etag: `"${sha256(bytes)}"`,
          'accept-ranges': 'bytes',
        });
        expect(head.rawPayload.length, route).toBe(0);
        // several ranges, another unit, or If-Range naming other bytes: the whole file
        expect((await fetchUrl(fileUrl, { range: 'bytes=0-1,5-6' })).statusCode, route).toBe(200);
        expect((await fetchUrl(fileUrl, { range: 'items=0-1' })).statusCode, route).toBe(200);
        expect((await fetchUrl(fileUrl, { range: 'bytes=0-1', 'if-range': '"0000"' })).statusCode, route).toBe(200);
        expect(
          (await fetchUrl(fileUrl, { range: 'bytes=0-1', 'if-range': `"${sha256(bytes)}"` })).statusCode,
          route,
        ).toBe(206);
      }
    });

    it('joins a 50 MiB file sent in 5 MiB chunks in shuffled order, one sent twice, into the same bytes', async () => {
      const file = pdfBytes(50 * MiB);
      const total = 10;
      const chunks = Array.from({ length: total }, (_, i) => file.subarray(i * 5 * MiB, (i + 1) * 5 * MiB));
      const order = [7, 3, 10, 1, 5, 9, 2, 8, 6, 4];
      const uploadId = await init('年度报告 final.pdf');
      const answers = [];
      for (const [i, n] of order.entries()) {
        answers.push((await chunk(uploadId, n, total, chunks[n - 1])).body);
        // chunk 5 again, as a client does after a lost answer
        if (i === 4) answers.push((await chunk(uploadId, 5, total, chunks[4])).body);
      }
      expect(answers.every((a) => a.errcode === 0)).toBe(true);
      // Every chunk answers the file's name and URL (spec A 4.9 rule 1); only the last one completes it.
      const { fileUrl } = answers[0].data;
      expect(answers.map((a) => [a.data.completed, a.data.fileName, a.data.fileUrl])).toEqual(
        answers.map((_, i) => [i === answers.length - 1, '年度报告 final.pdf', fileUrl]),
      );
      expect(answers.slice(0, -1).map((a) => a.data.receivedChunks)).toEqual([1, 2, 3, 4, 5, 5, 6, 7, 8, 9]);
      const done = answers.at(-1)!.data;
      expect(done).toMatchObject({
        completed: true,
        fileName: '年度报告 final.pdf',
        size: file.length,
        contentType: 'application/pdf',
        receivedChunks: 10,
        totalChunks: 10,
      });
      expect(done.fileUrl).toBe(`http://localhost:80/open-api/oss/file?fileKey=${encodeURIComponent(done.fileKey)}`);
      const record = await t.db
        .selectFrom('file_object')
        .selectAll()
        .where('file_key', '=', done.fileKey)
        .executeTakeFirstOrThrow();
      expect(record).toMatchObject({
        sha256: sha256(file),
        size: file.length,
        storage: backend,
        source: 'multipart',
        uploader_id: staff.userId,
      });

      const res = await download(done.fileKey);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/pdf');
      expect(res.headers['content-length']).toBe(String(file.length));
      expect(res.headers['content-disposition']).toBe(
        `attachment; filename="____ final.pdf"; filename*=UTF-8''${encodeURIComponent('年度报告 final.pdf')}`,
      );
      expect(sha256(res.rawPayload)).toBe(sha256(file));
      expect(tempFiles()).toEqual([]);
      // one operation-log row per chunk call, the upload id as business id
      const logged = await t.db
        .selectFrom('operate_log')
        .select(['success', 'biz_id'])
        .where('path', '=', `${M}/multipartUpload`)
        .where('biz_id', '=', uploadId)
        .execute();
      expect(logged).toHaveLength(11);
      expect(logged.every((l) => l.success)).toBe(true);
    });

    it('uploads one file and downloads the same bytes with its type, length and name', async () => {
      const bytes = pdfBytes(300 * 1024);
      const res = await postForm(t, `${O}/upload`, [['file', { name: 'invoice.pdf', bytes, type: 'image/png' }]], {
        token: staff.token,
      });
      expect(res.body.errcode, res.body.errmsg).toBe(0);
      expect(res.body.data).toMatchObject({
        fileName: 'invoice.pdf',
        size: bytes.length,
        contentType: 'application/pdf',
      });
      const got = await download(res.body.data.fileKey);
      expect(got.headers['content-type']).toBe('application/pdf');
      expect(got.headers['content-length']).toBe(String(bytes.length));
      expect(got.headers['content-disposition']).toContain('filename="invoice.pdf"');
      expect(sha256(got.rawPayload)).toBe(sha256(bytes));
    });

    it('stores base64 content and answers the same bytes', async () => {
      const bytes = pdfBytes(100 * 1024);
      const res = await t.post(
        `${O}/uploadBase64`,
        { fileName: 'scan.pdf', content: bytes.toString('base64') },
        staff.token,
      );
      expect(res.body.errcode, res.body.errmsg).toBe(0);
      expect(sha256((await download(res.body.data.fileKey)).rawPayload)).toBe(sha256(bytes));
      expect(tempFiles()).toEqual([]);
    });

    it('refuses a file over UPLOAD_MAX_BYTES with 413 and stores nothing, in each upload', async () => {
      const before = await fileRows();
      const big = pdfBytes(LIMIT + 1);
      const single = await postForm(t, `${O}/upload`, [['file', { name: 'big.pdf', bytes: big }]], {
        token: staff.token,
      });
      expect(single.body).toEqual({ errcode: 413, errmsg: `the file is larger than the limit of ${LIMIT} bytes` });
      const uploadId = await init('big.pdf');
      const part = await chunk(uploadId, 1, 2, big);
      expect(part.body.errcode).toBe(413);
      const b64 = await t.post(
        `${O}/uploadBase64`,
        { fileName: 'big.pdf', content: big.toString('base64') },
        staff.token,
      );
      expect(b64.body).toEqual({ errcode: 413, errmsg: `the file is larger than the limit of ${LIMIT} bytes` });
      expect(await fileRows()).toBe(before);
      expect(
        await t.db
          .selectFrom('multipart_upload_part')
          .innerJoin('multipart_upload', 'multipart_upload.id', 'upload_pk')
          .select('part_number')
          .where('upload_id', '=', uploadId)
          .execute(),
      ).toEqual([]);
      expect(tempFiles()).toEqual([]);
    });

    it('refuses path traversal, absolute paths and NUL bytes in names and keys with 400', async () => {
      for (const fileName of ['../../etc/passwd', '/etc/passwd', 'C:\\Windows\\win.ini', 'a\u0000.pdf', '..']) {
        const res = await t.post(`${M}/multipartFileInit`, { fileName }, staff.token);
        expect(res.body.errcode, fileName).toBe(400);
        expect(res.body.errmsg).toMatch(/^fileName /);
        const b64 = await t.post(
          `${O}/uploadBase64`,
          { fileName, content: pdfBytes(100).toString('base64') },
          staff.token,
        );
        expect(b64.body.errcode, fileName).toBe(400);
      }
      // A multipart part's file name keeps its last segment only (browsers and mini programs may send a
      // whole client-side path there), so no path in it reaches anything.
      for (const name of ['../../etc/x.pdf', '..\\..\\x.pdf', '/etc/x.pdf']) {
        const single = await postForm(t, `${O}/upload`, [['file', { name, bytes: pdfBytes(100) }]], {
          token: staff.token,
        });
        expect(single.body.errcode, name).toBe(0);
        expect(single.body.data.fileName, name).toBe('x.pdf');
      }
      for (const fileKey of [
        '../../etc/passwd',
        '/etc/passwd',
        '2026/01/01/../../x',
        `2026/01/01/${'a'.repeat(32)}\u0000`,
        'C:/x',
      ]) {
        const res = await download(fileKey);
        expect(res.json().errcode, fileKey).toBe(400);
      }
      const uploadId = await init('ok.pdf');
      for (const fileKey of ['../x.pdf', '/abs/x.pdf', 'a/../../x', 'x\u0000y']) {
        const res = await chunk(uploadId, 1, 1, pdfBytes(100), fileKey);
        expect(res.body.errcode, fileKey).toBe(400);
        expect(res.body.errmsg).toMatch(/^fileKey /);
      }
    });

    it('refuses content that is not base64 with 400', async () => {
      for (const content of ['not base64!', 'QUJD\u00e9', 'QUJDR', '====', 'QQ==QQ==']) {
        const res = await t.post(`${O}/uploadBase64`, { fileName: 'x.txt', content }, staff.token);
        expect(res.body, content).toEqual({ errcode: 400, errmsg: 'content is not valid base64' });
      }
      expect(tempFiles()).toEqual([]);
    });

    it('refuses a file that is not a JPEG or PNG in uploadWithFaceCheck (1_011_000_001), and keeps a face photo', async () => {
      const before = await fileRows();
      const res = await postForm(t, `${O}/uploadWithFaceCheck`, [
        ['file', { name: 'face.jpg', bytes: pdfBytes(2000), type: 'image/jpeg' }],
      ]);
      expect(res.body).toEqual({ errcode: 1_011_000_001, errmsg: 'the image must be a JPEG or PNG' });
      expect(await fileRows()).toBe(before);
      const ok = await postForm(t, `${O}/uploadWithFaceCheck`, [['file', { name: 'me.jpg', bytes: FACE_JPEG }]]);
      expect(ok.body.errcode, ok.body.errmsg).toBe(0);
      expect(sha256((await download(ok.body.data.fileKey)).rawPayload)).toBe(sha256(FACE_JPEG));
    });

    it(
      backend === 's3'
        ? "refuses a chunk under S3's 5 MiB part minimum unless it is the last"
        : 'takes chunks of any size',
      async () => {
        const uploadId = await init('small.pdf');
        const small = await chunk(uploadId, 1, 2, pdfBytes(1000));
        if (backend === 's3')
          expect(small.body).toEqual({
            errcode: 400,
            errmsg: `the chunk is too small: every chunk but the last must hold at least ${5 * MiB} bytes on this storage`,
          });
        else expect(small.body.errcode).toBe(0);
        const last = await chunk(uploadId, 2, 2, pdfBytes(1000).subarray(0, 300));
        expect(last.body.errcode, last.body.errmsg).toBe(0);
      },
    );

    it('cleans uploads without a chunk for 24 h, with an injected clock, and answers 400 for them afterwards', async () => {
      const uploadId = await init('abandoned.pdf');
      expect((await chunk(uploadId, 1, 2, pdfBytes(5 * MiB))).body.errcode).toBe(0);
      const storage = await createStorage(t.config, { db: t.db });
      try {
        const early = createMultipartService({ db: t.db, storage, now: () => new Date(Date.now() + 23 * 3600_000) });
        await early.cleanupAbandoned();
        expect(
          await t.db.selectFrom('multipart_upload').select('id').where('upload_id', '=', uploadId).execute(),
        ).toHaveLength(1);
        const late = createMultipartService({ db: t.db, storage, now: () => new Date(Date.now() + 25 * 3600_000) });
        // s3rver does not implement AbortMultipartUpload: there the rows go and the failure is reported.
        const outcome = await late.cleanupAbandoned().then(
          (r) => r,
          (err: Error) => err,
        );
        if (backend === 'local') {
          expect(outcome).toMatchObject({ removed: expect.any(Number) });
          expect(readdirSync(path.join(t.config.dataDir, 'files', '.multipart'))).toEqual([]);
        }
        expect(
          await t.db.selectFrom('multipart_upload').select('id').where('upload_id', '=', uploadId).execute(),
        ).toEqual([]);
      } finally {
        await storage.close();
      }
      expect((await chunk(uploadId, 2, 2, pdfBytes(100))).body).toEqual({
        errcode: 400,
        errmsg: 'uploadId is unknown or has expired: start again with multipartFileInit',
      });
    });
  });
}
