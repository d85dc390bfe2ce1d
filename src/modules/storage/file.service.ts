import { Readable } from 'node:stream';
import { parseByteRange } from '../../platform/http/byte-range.js';
import type { Config } from '../../config.js';
import type { RequestContext } from '../../platform/http/context.js';
import { contentDisposition, FileResponse, matchesEtag } from '../../platform/http/responses.js';
import { enforceRate } from '../../platform/rate-limit.js';
import { DOCUMENT_TYPES, FACE_IMAGE_TYPES, type Storage } from '../../platform/storage/index.js';
import type { Store } from '../../platform/store/store.js';
import { findStoredFile, openStoredObject, withCharset } from './stored-file.js';

/** A key names one set of bytes for ever, so a fetched file never needs to be fetched again. */
// private: the files include people's face photos, which no shared cache (proxy, CDN) should keep.
const IMMUTABLE = 'private, max-age=31536000, immutable';

/** Shown in the browser: the images uploads accept (SVG is not among them: it is markup) and PDF. Everything else downloads. */
const INLINE: ReadonlySet<string> = new Set(
  [...DOCUMENT_TYPES, ...FACE_IMAGE_TYPES].filter((t) => t.startsWith('image/')).concat('application/pdf'),
);

/**
 * The type a file is served with: the recorded (sniffed) one when uploads accept it, text with its
 * charset; any other type (a record another writer made) as opaque bytes, so user content is never
 * served as HTML or script.
 */
export function servedType(recorded: string): { contentType: string; inline: boolean } {
  if (!DOCUMENT_TYPES.has(recorded) && !FACE_IMAGE_TYPES.has(recorded))
    return { contentType: 'application/octet-stream', inline: false };
  return { contentType: withCharset(recorded), inline: INLINE.has(recorded) };
}

/** What the client sent that shapes the answer. */
export interface FetchConditions {
  /** a HEAD request: the headers only, without reading the object */
  head?: boolean;
  ifNoneMatch?: string;
  range?: string;
  ifRange?: string;
}

export interface FileFetch {
  /** 200 with the bytes, 206 with the asked range of them, 304 when If-None-Match names them, 416 for a range past the end */
  status: 200 | 206 | 304 | 416;
  file: FileResponse;
}

export interface FileServiceDeps {
  storage: Storage;
  store: Store;
  config: Pick<Config, 'fileFetchRatePerMin'>;
}

/**
 * The token-free file route behind every file URL uploads answer: the 128-bit random key is the
 * capability (as a private bucket's unguessable object names are), so the mini program, an <img>
 * tag and a spec client fetch the URL they were given as is. Staff downloads with per-merchant
 * rules stay on /manage-api/oss/download.
 */
export function createFileService(deps: FileServiceDeps) {
  const { storage, store, config } = deps;

  // On the bytes and on 304 alike, so a cache refreshes what it holds.
  const validators = (etag: string) => ({ etag, 'cache-control': IMMUTABLE, 'x-content-type-options': 'nosniff' });

  return {
    /** Before anything is looked up: login-free, so limited per client address (304s count too). */
    admit(ctx: RequestContext): Promise<void> {
      return enforceRate(store, 'file-fetch', ctx.ip, config.fileFetchRatePerMin);
    },

    async fetch(fileKey: string, when: FetchConditions = {}): Promise<FileFetch> {
      const { key, record } = await findStoredFile(storage, fileKey);
      const { contentType, inline } = servedType(record.contentType);
      const etag = `"${record.sha256}"`;
      if (matchesEtag(when.ifNoneMatch, etag)) {
        return { status: 304, file: new FileResponse(contentType, Readable.from([]), { headers: validators(etag) }) };
      }
      // A range is honoured for these very bytes only (If-Range naming another version sends them whole):
      // players seek, and iOS plays a video only from a server that answers ranges.
      const range =
        when.ifRange === undefined || when.ifRange === etag ? parseByteRange(when.range, record.size) : null;
      const common = { ...validators(etag), 'accept-ranges': 'bytes' };
      if (range === 'unsatisfiable') {
        return {
          status: 416,
          file: new FileResponse(contentType, Readable.from([]), {
            headers: { ...common, 'content-range': `bytes */${record.size}`, 'content-length': '0' },
          }),
        };
      }
      // HEAD answers the headers the bytes would come with, from the record, without reading the object.
      const object = when.head
        ? { size: record.size, stream: Readable.from([]) }
        : await openStoredObject(storage, key, range ?? undefined);
      const disposition = contentDisposition(record.fileName, inline ? 'inline' : 'attachment');
      if (range) {
        return {
          status: 206,
          file: new FileResponse(contentType, object.stream, {
            headers: {
              ...common,
              'content-disposition': disposition,
              'content-range': `bytes ${range.start}-${range.end}/${object.size}`,
              'content-length': String(range.end - range.start + 1),
            },
          }),
        };
      }
      return {
        status: 200,
        file: new FileResponse(contentType, object.stream, {
          headers: { ...common, 'content-length': String(object.size), 'content-disposition': disposition },
        }),
      };
    },
  };
}

export type FileService = ReturnType<typeof createFileService>;
