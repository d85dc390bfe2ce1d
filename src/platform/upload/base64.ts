import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError, badRequest, ErrorCode } from '../errors.js';
import { Tap, type UploadedFile } from './receive.js';

const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+)?(;[\w-]+=[\w.-]+)*;base64,/i;
const STANDARD = /^[A-Za-z0-9+/]*={0,2}$/;
const URL_SAFE = /^[A-Za-z0-9_-]*={0,2}$/;
// A multiple of 4 characters, so every slice decodes on its own.
const SLICE_CHARS = 1024 * 1024;

/** Characters of base64 that `maxBytes` bytes take, with room for a `data:` prefix: a JSON body limit for such routes. */
export function base64Length(maxBytes: number): number {
  return Math.ceil(maxBytes / 3) * 4 + 256;
}

/**
 * Decodes base64 text (optionally a `data:` URL; standard or URL-safe alphabet, padded or not, no
 * line breaks) into a temporary file, as a multipart upload would have received it: size, sha256
 * and first bytes recorded. The decoded size is known from the length, so an oversize file is
 * refused (413) before anything is written; the text is decoded slice by slice.
 */
export async function receiveBase64(
  text: string,
  opts: { field: string; fileName: string; tempDir: string; maxBytes: number },
): Promise<UploadedFile> {
  const header = DATA_URL.exec(text);
  const data = header ? text.slice(header[0].length) : text;
  const invalid = () => badRequest(`${opts.field} is not valid base64`);
  if (data.length === 0) throw badRequest(`${opts.field} is empty`);
  const alphabet = STANDARD.test(data) ? 'base64' : URL_SAFE.test(data) ? 'base64url' : null;
  if (!alphabet) throw invalid();
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  if (data.length % 4 === 1 || (padding > 0 && data.length % 4 !== 0)) throw invalid();
  const size = Math.floor(((data.length - padding) * 3) / 4);
  if (size > opts.maxBytes) {
    throw new AppError(ErrorCode.PAYLOAD_TOO_LARGE, `the file is larger than the limit of ${opts.maxBytes} bytes`);
  }
  await mkdir(opts.tempDir, { recursive: true });
  const tempPath = path.join(opts.tempDir, `upload-${randomBytes(12).toString('hex')}`);
  const tap = new Tap();
  function* slices() {
    for (let at = 0; at < data.length; at += SLICE_CHARS)
      yield Buffer.from(data.slice(at, at + SLICE_CHARS), alphabet!);
  }
  try {
    await pipeline(Readable.from(slices()), tap, createWriteStream(tempPath, { flags: 'wx', mode: 0o600 }));
  } catch (err) {
    await unlink(tempPath).catch(() => {});
    throw err;
  }
  return {
    field: opts.field,
    fileName: opts.fileName,
    declaredType: header?.[1] ?? '',
    size: tap.size,
    sha256: tap.hash.digest('hex'),
    head: tap.head,
    tempPath,
  };
}
