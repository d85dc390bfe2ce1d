import { createHash, randomBytes } from 'node:crypto';
import { crossSiteForm } from '../http/body.js';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { AppError, badRequest, ErrorCode } from '../errors.js';
import { BOUNDARY_MISMATCH, boundaryOf, MultipartBodyWatch, NO_USABLE_BOUNDARY } from './body-watch.js';

/** A file part of a multipart request, received into a temporary file (never held whole in memory). */
export interface UploadedFile {
  /** the form field it came in */
  field: string;
  /** the client's file name: a label only, never a path */
  fileName: string;
  /** the declared content type (sniff `head` before trusting it) */
  declaredType: string;
  size: number;
  sha256: string;
  /** the first bytes, for content sniffing */
  head: Buffer;
  /** the temporary file; removed after the response unless the handler moved it */
  tempPath: string;
}

export interface UploadLimits {
  maxFileBytes: number;
  maxFiles: number;
  maxFields: number;
  maxFieldBytes: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** the files received for an upload route; null on every other route */
    uploadedFiles: UploadedFile[] | null;
  }
}

const HEAD_BYTES = 64;

const tooLarge = (message: string) => new AppError(ErrorCode.PAYLOAD_TOO_LARGE, message);

/** Counts, hashes and keeps the first bytes of what passes through. */
export class Tap extends Transform {
  size = 0;
  readonly hash = createHash('sha256');
  private headParts: Buffer[] = [];
  private headLength = 0;

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null, data?: Buffer) => void): void {
    this.size += chunk.length;
    this.hash.update(chunk);
    if (this.headLength < HEAD_BYTES) {
      this.headParts.push(chunk.subarray(0, HEAD_BYTES - this.headLength));
      this.headLength += Math.min(chunk.length, HEAD_BYTES - this.headLength);
    }
    done(null, chunk);
  }

  get head(): Buffer {
    return Buffer.concat(this.headParts);
  }
}

// What busboy says of a body it cannot finish (a missing close, a wrong boundary, a cut part: all the
// same "unexpected end" to it) or of a Content-Type whose boundary it cannot use.
const MALFORMED = /Unexpected end of (multipart data|form)|terminated early|Malformed/i;
const NO_BOUNDARY = /Boundary not found|Boundary required|needle/i;

function mapMultipartError(
  err: unknown,
  limits: UploadLimits,
  watch: MultipartBodyWatch,
  raw: FastifyRequest['raw'],
): unknown {
  if (err instanceof AppError) return err;
  const code = (err as { code?: string }).code;
  const message = err instanceof Error ? err.message : '';
  switch (code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return tooLarge(`the file is larger than the limit of ${limits.maxFileBytes} bytes`);
    case 'FST_FILES_LIMIT':
      return tooLarge(`at most ${limits.maxFiles} files may be sent at once`);
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
      return tooLarge('the form has too many fields');
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return badRequest('unsupported content type: send multipart/form-data');
    case 'FST_PROTO_VIOLATION':
      return badRequest('the form has a field name that is not allowed');
    case 'FST_INVALID_JSON_FIELD_ERROR':
      return badRequest('a form field declared as application/json is not valid JSON');
    case 'FST_MP_PREMATURE_CLOSE':
      return badRequest(watch.diagnose({ complete: false }));
  }
  if (NO_BOUNDARY.test(message)) return badRequest(NO_USABLE_BOUNDARY);
  // Only a real connection says whether the whole declared body arrived (`complete`).
  if (MALFORMED.test(message)) return badRequest(watch.diagnose({ complete: raw.complete !== false }));
  return err;
}

/**
 * Reads a whole multipart body: every file part streams into a temporary file under `tempDir` (its
 * size, sha256 and first bytes recorded on the way), every other part becomes a field of the
 * returned object. Limits refuse with 413 and remove what was written.
 */
export async function receiveMultipart(
  request: FastifyRequest,
  tempDir: string,
  limits: UploadLimits,
): Promise<Record<string, string>> {
  if (!request.isMultipart()) {
    // A POST without any body is an empty form, as an empty body is an empty request object on every
    // other route: the operation then says which part it misses, or (an optional file) does without.
    if (hasNoBody(request)) {
      request.uploadedFiles = [];
      return Object.create(null) as Record<string, string>;
    }
    throw badRequest('unsupported content type: send multipart/form-data');
  }
  const crossSite = crossSiteForm(request);
  if (crossSite) throw crossSite;
  await mkdir(tempDir, { recursive: true });
  const fields: Record<string, string> = Object.create(null);
  const files: UploadedFile[] = [];
  request.uploadedFiles = files;
  // The open-channel signature covers the raw body: hash every byte busboy reads from the socket.
  // Attached in the same tick as busboy's pipe (inside parts()), so both see every chunk. Only signed
  // calls carry an app key; token calls skip the second hash of every byte.
  // The same listener watches the body's shape, to name what is wrong with a body busboy cannot finish.
  const raw = request.raw;
  const bodyHash = request.headers['x-app-key'] !== undefined ? createHash('sha256') : null;
  const watch = new MultipartBodyWatch(boundaryOf(request.headers['content-type']));
  // A body that never shows the header's boundary is refused once past the preamble allowance, rather
  // than read to its end: the parser is cut off, and the wait for its next part gives way to this.
  let refuseBoundary!: (err: AppError) => void;
  const boundaryMissed = new Promise<never>((_, reject) => (refuseBoundary = reject));
  boundaryMissed.catch(() => {});
  const onData = (chunk: Buffer) => {
    bodyHash?.update(chunk);
    watch.feed(chunk);
    if (watch.boundaryMissed) {
      raw.off('data', onData);
      raw.unpipe();
      refuseBoundary(badRequest(BOUNDARY_MISMATCH));
    }
  };
  raw.on('data', onData);
  try {
    const parts = request
      .parts({
        limits: {
          fileSize: limits.maxFileBytes,
          files: limits.maxFiles,
          fields: limits.maxFields,
          fieldSize: limits.maxFieldBytes,
          parts: limits.maxFiles + limits.maxFields,
        },
      })
      [Symbol.asyncIterator]();
    for (;;) {
      const next = await Promise.race([parts.next(), boundaryMissed]);
      if (next.done) break;
      const part = next.value;
      if (part.type === 'field') {
        if (part.valueTruncated)
          throw tooLarge(`the field ${part.fieldname} is longer than ${limits.maxFieldBytes} bytes`);
        fields[part.fieldname] = String(part.value);
        continue;
      }
      const tempPath = path.join(tempDir, `upload-${randomBytes(12).toString('hex')}`);
      const tap = new Tap();
      const file: UploadedFile = {
        field: part.fieldname,
        fileName: part.filename ?? '',
        declaredType: part.mimetype,
        size: 0,
        sha256: '',
        head: Buffer.alloc(0),
        tempPath,
      };
      files.push(file);
      await pipeline(part.file, tap, createWriteStream(tempPath, { flags: 'wx', mode: 0o600 }));
      if (part.file.truncated) throw tooLarge(`the file is larger than the limit of ${limits.maxFileBytes} bytes`);
      Object.assign(file, { size: tap.size, sha256: tap.hash.digest('hex'), head: tap.head });
    }
    if (!raw.readableEnded) await once(raw, 'end');
    if (bodyHash) request.bodySha256 = bodyHash.digest('hex');
  } catch (err) {
    await discardUploads(request);
    throw mapMultipartError(err, limits, watch, raw);
  }
  return fields;
}

/** No Content-Type and nothing after the headers: Fastify hands such a request over unparsed. */
function hasNoBody(request: FastifyRequest): boolean {
  const h = request.headers;
  return (
    h['content-type'] === undefined &&
    h['transfer-encoding'] === undefined &&
    (h['content-length'] === undefined || h['content-length'] === '0')
  );
}

/** Removes the temporary files of a request that the handler did not move elsewhere. */
export async function discardUploads(request: FastifyRequest): Promise<void> {
  const files = request.uploadedFiles ?? [];
  await Promise.all(files.map((f) => unlink(f.tempPath).catch(() => {})));
}
