import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { buildApp } from '../../src/app.js';
import { MODULES } from '../../src/modules/index.js';
import type { Deps } from '../../src/platform/deps.js';
import { defineModule } from '../../src/platform/module.js';
import type { TestApp } from '../helpers/test-app.js';

export const MiB = 1024 * 1024;
export const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** A small valid PDF: something every general upload accepts, unlike random bytes. */
export function pdfBytes(size = 4096): Buffer {
  const head = Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj << /Type /Catalog >> endobj\n', 'latin1');
  const tail = Buffer.from('\ntrailer << /Root 1 0 R >>\n%%EOF\n', 'latin1');
  return Buffer.concat([head, randomBytes(Math.max(0, size - head.length - tail.length)), tail]);
}

export type Part = [string, string | { name: string; bytes: Uint8Array; type?: string }];

/** A multipart/form-data body as a browser would send it. */
export async function form(parts: Part[]): Promise<{ body: Buffer; contentType: string }> {
  const fd = new FormData();
  for (const [field, v] of parts) {
    if (typeof v === 'string') fd.append(field, v);
    else fd.append(field, new Blob([new Uint8Array(v.bytes)], { type: v.type ?? 'application/octet-stream' }), v.name);
  }
  const req = new Request('http://local/', { method: 'POST', body: fd });
  return { body: Buffer.from(await req.arrayBuffer()), contentType: req.headers.get('content-type')! };
}

export async function postForm(
  t: TestApp,
  url: string,
  parts: Part[],
  opts: { token?: string; headers?: Record<string, string>; remoteAddress?: string } = {},
) {
  const { body, contentType } = await form(parts);
  const res = await t.app.inject({
    method: 'POST',
    url,
    payload: body,
    headers: {
      'content-type': contentType,
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...(opts.headers ?? {}),
    },
    ...(opts.remoteAddress ? { remoteAddress: opts.remoteAddress } : {}),
  });
  return { status: res.statusCode, body: res.json() as { errcode: number; errmsg: string; data?: any }, raw: res };
}

export interface S3Server {
  env: Record<string, string>;
  close(): Promise<void>;
}

/** An S3-compatible server (s3rver) on loopback, with one empty bucket, in a temporary folder. */
export async function startS3(): Promise<S3Server> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'tc-s3rver-'));
  const bucket = `tc-${randomBytes(4).toString('hex')}`;
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = await server.run();
  return {
    env: {
      STORAGE: 's3',
      S3_ENDPOINT: `http://127.0.0.1:${port}`,
      S3_BUCKET: bucket,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY: 'S3RVER',
      S3_SECRET_KEY: 'S3RVER',
    },
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * The platform services a test app built from `t`'s configuration gets (its storage and face
 * service), through a second app on the same database, store and storage location.
 */
export async function platformDeps(t: TestApp): Promise<{ deps: Deps; close(): Promise<void> }> {
  let captured: Deps | null = null;
  const capture = defineModule({ name: 'capture', routes: (deps) => ((captured = deps), []) });
  const app = await buildApp({
    config: t.config,
    database: t.database,
    store: t.store,
    logger: false,
    modules: [...MODULES, capture],
  });
  await app.ready();
  return { deps: captured!, close: () => app.close() };
}
