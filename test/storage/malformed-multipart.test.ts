import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstJsonBody } from '../helpers/raw-http.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { FACE_JPEG } from '../platform/face-images.js';
import { MiB, pdfBytes } from './storage-fixtures.js';

/**
 * Every upload operation answers a multipart body it cannot finish with the envelope, errcode 400
 * naming what is wrong (never HTTP 500), and keeps nothing of it: sent over a real socket, with a
 * Content-Length and chunked, as a client that builds its own body sends it.
 */
const M = '/manage-api/oss';
const O = '/open-api/oss';

let t: TestApp;
let staff: StaffSession;
let port: number;

beforeAll(async () => {
  t = await createTestApp({ FACE_UPLOAD_RATE_PER_MIN: '1000' });
  staff = await staffSession(t, { kind: 'platform', permissions: ['oss:upload', 'oss:download'] });
  port = Number(new URL(await t.app.listen({ port: 0, host: '127.0.0.1' })).port);
});
afterAll(() => t?.close());

type Part = { name: string; value: string } | { name: string; fileName: string; bytes: Buffer };

/** A multipart body written by hand: `--B` CRLF headers CRLF CRLF content CRLF per part, then `--B--` CRLF. */
function partsOf(boundary: string, parts: Part[]): Buffer[] {
  return parts.map((p) => {
    const head =
      'bytes' in p
        ? `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"; filename="${p.fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`
        : `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"\r\n\r\n`;
    return Buffer.concat([Buffer.from(head), 'bytes' in p ? p.bytes : Buffer.from(p.value), Buffer.from('\r\n')]);
  });
}

interface Sent {
  status: number;
  body: unknown;
}

/** One request over a plain socket, the body as given (chunked: in 16 KiB chunks), read until the server closes. */
function sendRaw(urlPath: string, headers: Record<string, string>, body: Buffer, chunked = false): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' });
    const received: Buffer[] = [];
    socket.on('data', (d) => received.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      const response = Buffer.concat(received).toString('utf8');
      resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(response)?.[1] ?? 0), body: firstJsonBody(response) });
    });
    const head = [
      `POST ${urlPath} HTTP/1.1`,
      'Host: 127.0.0.1',
      'Connection: close',
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    ];
    head.push(chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${body.length}`);
    socket.write(`${head.join('\r\n')}\r\n\r\n`);
    if (!chunked) socket.write(body);
    else {
      for (let at = 0; at < body.length; at += 16 * 1024) {
        const piece = body.subarray(at, at + 16 * 1024);
        socket.write(Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]));
      }
      socket.write('0\r\n\r\n');
    }
  });
}

interface Operation {
  name: string;
  path: string;
  token: boolean;
  /** the parts of a good request, the file last */
  parts(): Promise<Part[]>;
}

const OPERATIONS: Operation[] = [
  {
    name: 'multipartUpload',
    path: `${M}/multipartUpload`,
    token: true,
    async parts() {
      const init = await t.post(`${M}/multipartFileInit`, { fileName: 'big.pdf' }, staff.token);
      expect(init.body.errcode, init.body.errmsg).toBe(0);
      return [
        { name: 'uploadId', value: init.body.data.uploadId },
        { name: 'totalChunks', value: '1' },
        { name: 'chunkNumber', value: '1' },
        { name: 'fileKey', value: 'client/big.pdf' },
        { name: 'file', fileName: 'big.pdf', bytes: pdfBytes(MiB) },
      ];
    },
  },
  {
    name: 'upload',
    path: `${O}/upload`,
    token: true,
    parts: async () => [{ name: 'file', fileName: 'doc.pdf', bytes: pdfBytes(MiB) }],
  },
  {
    name: 'uploadWithFaceCheck',
    path: `${O}/uploadWithFaceCheck`,
    token: false,
    parts: async () => [{ name: 'file', fileName: 'me.jpg', bytes: FACE_JPEG }],
  },
];

const CLOSING_MISSING = 'malformed multipart body: the closing boundary is missing';
const MISMATCH = 'malformed multipart body: the boundary does not match the Content-Type header';
const TRUNCATED = 'malformed multipart body: a part is truncated';
const NO_BOUNDARY = 'malformed multipart body: the Content-Type header names no usable boundary';

interface Form {
  name: string;
  errmsg: string;
  /** the header's boundary and the body */
  build(parts: Part[]): { contentType: string; body: Buffer };
}

const boundary = () => `----tc${randomBytes(8).toString('hex')}`;
const header = (b: string) => `multipart/form-data; boundary=${b}`;

const FORMS: Form[] = [
  {
    name: 'without the closing boundary',
    errmsg: CLOSING_MISSING,
    build(parts) {
      const b = boundary();
      return { contentType: header(b), body: Buffer.concat(partsOf(b, parts)) };
    },
  },
  {
    name: 'closed by a delimiter without its final dashes',
    errmsg: CLOSING_MISSING,
    build(parts) {
      const b = boundary();
      return { contentType: header(b), body: Buffer.concat([...partsOf(b, parts), Buffer.from(`--${b}\r\n`)]) };
    },
  },
  {
    name: "with a boundary other than the Content-Type header's",
    errmsg: MISMATCH,
    build(parts) {
      const b = boundary();
      return { contentType: header(`${b}x`), body: Buffer.concat([...partsOf(b, parts), Buffer.from(`--${b}--\r\n`)]) };
    },
  },
  {
    name: "whose boundary extends the header's",
    errmsg: MISMATCH,
    build(parts) {
      const b = boundary();
      return {
        contentType: header(b.slice(0, -4)),
        body: Buffer.concat([...partsOf(b, parts), Buffer.from(`--${b}--\r\n`)]),
      };
    },
  },
  {
    name: 'with the file part cut in its content',
    errmsg: TRUNCATED,
    build(parts) {
      const b = boundary();
      const all = partsOf(b, parts);
      const last = all.at(-1)!;
      const content = last.indexOf('\r\n\r\n') + 4;
      return {
        contentType: header(b),
        body: Buffer.concat([...all.slice(0, -1), last.subarray(0, content + Math.floor((last.length - content) / 2))]),
      };
    },
  },
  {
    name: 'with the file part cut in its headers',
    errmsg: TRUNCATED,
    build(parts) {
      const b = boundary();
      const all = partsOf(b, parts);
      const last = all.at(-1)!;
      return {
        contentType: header(b),
        body: Buffer.concat([...all.slice(0, -1), last.subarray(0, last.indexOf('filename') + 4)]),
      };
    },
  },
  {
    name: 'under a Content-Type without a boundary',
    errmsg: NO_BOUNDARY,
    build(parts) {
      const b = boundary();
      return {
        contentType: 'multipart/form-data',
        body: Buffer.concat([...partsOf(b, parts), Buffer.from(`--${b}--\r\n`)]),
      };
    },
  },
];

const tempFiles = () => {
  const dir = path.join(t.config.dataDir, 'tmp');
  return existsSync(dir) ? readdirSync(dir) : [];
};
const count = async (table: 'file_object' | 'multipart_upload_part') =>
  Number(
    (
      await t.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe.each(OPERATIONS)('$name', (op) => {
  const headersFor = (contentType: string) => ({
    'Content-Type': contentType,
    ...(op.token ? { Authorization: `Bearer ${staff.token}` } : {}),
  });

  it('takes the hand-written body when it is whole (the baseline of the malformed ones)', async () => {
    const parts = await op.parts();
    const b = boundary();
    const body = Buffer.concat([...partsOf(b, parts), Buffer.from(`--${b}--\r\n`)]);
    for (const chunked of [false, true]) {
      const res = await sendRaw(op.path, headersFor(header(b)), body, chunked);
      expect(res.status).toBe(200);
      expect((res.body as { errcode: number }).errcode, JSON.stringify(res.body)).toBe(0);
      if (op.name === 'multipartUpload') break; // its upload is complete now
    }
  });

  it.each(FORMS)('answers 400 naming the problem for a body $name, and keeps nothing of it', async (form) => {
    const parts = await op.parts();
    const files = await count('file_object');
    const chunks = await count('multipart_upload_part');
    const { contentType, body } = form.build(parts);
    for (const chunked of [false, true]) {
      const res = await sendRaw(op.path, headersFor(contentType), body, chunked);
      expect(res.status, `chunked: ${chunked}`).toBe(200);
      expect(res.body, `chunked: ${chunked}`).toEqual({ errcode: 400, errmsg: form.errmsg });
      expect(tempFiles()).toEqual([]);
    }
    // the same through the in-process injector (no socket)
    const injected = await t.app.inject({
      method: 'POST',
      url: op.path,
      payload: body,
      headers: headersFor(contentType),
    });
    expect(injected.statusCode).toBe(200);
    expect(injected.json()).toEqual({ errcode: 400, errmsg: form.errmsg });
    expect(tempFiles()).toEqual([]);
    expect(await count('file_object')).toBe(files);
    expect(await count('multipart_upload_part')).toBe(chunks);
  });
});

describe('multipartUpload with a malformed body', () => {
  it('leaves the upload as it was: the chunk sent again whole completes it', async () => {
    const parts = await OPERATIONS[0].parts();
    const uploadId = (parts[0] as { value: string }).value;
    const broken = FORMS[0].build(parts);
    const res = await sendRaw(
      `${M}/multipartUpload`,
      { 'Content-Type': broken.contentType, Authorization: `Bearer ${staff.token}` },
      broken.body,
    );
    expect(res.body).toEqual({ errcode: 400, errmsg: CLOSING_MISSING });
    const b = boundary();
    const whole = Buffer.concat([...partsOf(b, parts), Buffer.from(`--${b}--\r\n`)]);
    const again = await sendRaw(
      `${M}/multipartUpload`,
      { 'Content-Type': header(b), Authorization: `Bearer ${staff.token}` },
      whole,
    );
    expect(again.body).toMatchObject({ errcode: 0, data: { completed: true, fileName: 'big.pdf' } });
    const recorded = await t.db
      .selectFrom('multipart_upload')
      .innerJoin('multipart_upload_part', 'multipart_upload_part.upload_pk', 'multipart_upload.id')
      .select('part_number')
      .where('upload_id', '=', uploadId)
      .execute();
    expect(recorded).toEqual([{ part_number: 1 }]);
  });
});

describe("a body that never shows the header's boundary", () => {
  it('is refused once past the preamble allowance, without waiting for the rest of it', async () => {
    // 128 KiB of a 10 MiB body, then silence: only a server that stops at the allowance can answer.
    const answer = await new Promise<Sent>((resolve, reject) => {
      const socket = connect({ port, host: '127.0.0.1' });
      const received: Buffer[] = [];
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error('no answer while the body was still owed'));
      }, 20_000);
      socket.on('error', reject);
      socket.on('data', (d) => {
        received.push(d);
        const text = Buffer.concat(received).toString('utf8');
        const body = firstJsonBody(text);
        if (body === null) return;
        clearTimeout(timer);
        socket.destroy();
        resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0), body });
      });
      const head = [
        `POST ${O}/upload HTTP/1.1`,
        'Host: 127.0.0.1',
        `Authorization: Bearer ${staff.token}`,
        `Content-Type: ${header(boundary())}`,
        `Content-Length: ${10 * MiB}`,
      ];
      socket.write(`${head.join('\r\n')}\r\n\r\n`);
      socket.write(Buffer.alloc(128 * 1024, 'x'));
    });
    expect(answer).toEqual({ status: 200, body: { errcode: 400, errmsg: MISMATCH } });
    expect(tempFiles()).toEqual([]);
  });
});
