import { imageUnreadable } from './face.errors.js';
import { AppError } from '../errors.js';

/** A photo as callers hold it: an http(s) URL, base64 (optionally a `data:` URL), or the bytes. */
export type Photo = string | Uint8Array;

/**
 * Reads the photos of one URL space itself (object storage registers one for its own URLs, so
 * they are read from storage instead of fetched over HTTP).
 */
export interface PhotoResolver {
  handles(url: URL): boolean;
  /** The bytes; may stop early once `maxBytes` is exceeded (the reader refuses the photo then). */
  read(url: URL, opts: { maxBytes: number; signal: AbortSignal }): Promise<Uint8Array>;
}

export interface PhotoReader {
  readonly maxBytes: number;
  register(resolver: PhotoResolver): void;
  /** The photo's bytes; throws 1_025_000_003 when it cannot be read or exceeds `maxBytes`. */
  read(photo: Photo): Promise<Buffer>;
}

export interface PhotoReaderOptions {
  maxBytes: number;
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 5000;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;
const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+)?(;[\w-]+=[\w.-]+)*;base64,/i;

const mib = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;

export function createPhotoReader(opts: PhotoReaderOptions): PhotoReader {
  const resolvers: PhotoResolver[] = [];
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const { maxBytes } = opts;
  const tooLarge = () => imageUnreadable(`the image is too large: at most ${mib(maxBytes)}`);

  function decodeBase64(text: string): Buffer {
    const data = text.replace(/\s+/g, '');
    if (data === '' || !BASE64.test(data)) throw imageUnreadable('the image is neither an http(s) URL nor base64 data');
    if (Math.floor((data.length * 3) / 4) - 2 > maxBytes) throw tooLarge();
    return Buffer.from(data, data.includes('-') || data.includes('_') ? 'base64url' : 'base64');
  }

  async function download(url: URL): Promise<Buffer> {
    const signal = AbortSignal.timeout(timeoutMs);
    const resolver = resolvers.find((r) => r.handles(url));
    try {
      if (resolver) return Buffer.from(await resolver.read(url, { maxBytes, signal }));
      // The timeout covers reading the body too: the same signal aborts it.
      const res = await fetch(url, { signal, redirect: 'follow', headers: { accept: 'image/jpeg, image/png, image/*;q=0.8' } });
      if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
      const declared = Number(res.headers.get('content-length'));
      if (declared > maxBytes) {
        await res.body.cancel();
        throw tooLarge();
      }
      const chunks: Uint8Array[] = [];
      let total = 0;
      for await (const chunk of res.body) {
        total += chunk.byteLength;
        if (total > maxBytes) throw tooLarge();
        chunks.push(chunk);
      }
      return Buffer.concat(chunks);
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw imageUnreadable('the image could not be read from its URL', err);
    }
  }

  return {
    maxBytes,
    register(resolver) {
      resolvers.push(resolver);
    },
    async read(photo) {
      let bytes: Buffer;
      if (typeof photo !== 'string') {
        bytes = Buffer.from(photo.buffer, photo.byteOffset, photo.byteLength);
      } else {
        const text = photo.trim();
        const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]?.toLowerCase();
        if (scheme === 'http' || scheme === 'https') {
          let url: URL;
          try {
            url = new URL(text);
          } catch {
            throw imageUnreadable('the image URL is not valid');
          }
          bytes = await download(url);
        } else if (scheme === 'data') {
          const header = DATA_URL.exec(text);
          if (!header) throw imageUnreadable('a data: image must be base64 encoded');
          bytes = decodeBase64(text.slice(header[0].length));
        } else if (scheme !== undefined) {
          // file:, ftp:, gopher: … are never followed.
          throw imageUnreadable('the image URL must start with http:// or https://');
        } else {
          bytes = decodeBase64(text);
        }
      }
      if (bytes.length === 0) throw imageUnreadable('the image is empty');
      if (bytes.length > maxBytes) throw tooLarge();
      return bytes;
    },
  };
}
