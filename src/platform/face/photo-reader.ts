import { imageUnreadable } from './face.errors.js';
import { sniffImageFormat } from './image-format.js';
import { createAddressPolicy, fetchPhoto, type AddressPolicy } from './photo-fetch.js';
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
  /**
   * FACE_PHOTO_ALLOWED_HOSTS: host names, addresses or CIDRs that photo URLs may reach although they
   * are not public (a deployment whose photo store is internal). Public addresses are always allowed.
   */
  allowedHosts?: readonly string[];
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
  const policy: AddressPolicy = createAddressPolicy(opts.allowedHosts ?? []);
  // One answer for every way a fetched URL can fail (refused address, no connection, an HTTP error, a
  // body that is too large or not an image): the caller must not learn what the target answered.
  const unreadableUrl = (cause: unknown) =>
    imageUnreadable(
      `the image could not be read from its URL: give a JPEG or PNG of at most ${mib(maxBytes)} at a public http(s) address`,
      cause,
    );

  function decodeBase64(text: string): Buffer {
    const data = text.replace(/\s+/g, '');
    if (data === '' || !BASE64.test(data)) throw imageUnreadable('the image is neither an http(s) URL nor base64 data');
    if (Math.floor((data.length * 3) / 4) - 2 > maxBytes) throw tooLarge();
    return Buffer.from(data, data.includes('-') || data.includes('_') ? 'base64url' : 'base64');
  }

  async function fromResolver(resolver: PhotoResolver, url: URL): Promise<Buffer> {
    try {
      return Buffer.from(await resolver.read(url, { maxBytes, signal: AbortSignal.timeout(timeoutMs) }));
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw imageUnreadable('the image could not be read from its URL', err);
    }
  }

  /** Over HTTP, with the address policy on every hop; the timeout covers reading the body too. */
  async function fetchBytes(url: URL): Promise<Buffer> {
    try {
      const res = await fetchPhoto(url, { policy, signal: AbortSignal.timeout(timeoutMs) });
      const chunks: Buffer[] = [];
      let total = 0;
      try {
        if (Number(res.headers['content-length']) > maxBytes) throw new Error('declared too large');
        for await (const chunk of res) {
          total += (chunk as Buffer).byteLength;
          if (total > maxBytes) throw new Error('too large');
          chunks.push(chunk as Buffer);
        }
      } finally {
        res.destroy();
      }
      const bytes = Buffer.concat(chunks);
      if (bytes.length === 0 || !sniffImageFormat(bytes)) throw new Error('not a JPEG or PNG');
      return bytes;
    } catch (err) {
      throw unreadableUrl(err);
    }
  }

  function download(url: URL): Promise<Buffer> {
    const resolver = resolvers.find((r) => r.handles(url));
    return resolver ? fromResolver(resolver, url) : fetchBytes(url);
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
