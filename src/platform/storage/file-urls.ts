import type { PhotoResolver } from '../face/photo-reader.js';
import { isFileKey } from './keys.js';
import type { StoredObject } from './object-store.js';

/**
 * Where anyone holding a file's URL fetches it: the storage module's token-free route, where the
 * unguessable key is the capability (as a private bucket's random object names are).
 */
export const PUBLIC_FILE_PATH = '/open-api/oss/file';
/** The staff download (spec A 4.9), authorised per merchant; the file URLs of earlier uploads point here. */
export const DOWNLOAD_PATH = '/manage-api/oss/download';
const FILE_PATHS = [PUBLIC_FILE_PATH, DOWNLOAD_PATH];

/** The URL an upload answers: the public base (FILE_BASE_URL, else the request's origin), the file route, the key. */
export function fileUrl(base: string, fileKey: string): string {
  return `${base.replace(/\/+$/, '')}${PUBLIC_FILE_PATH}?fileKey=${encodeURIComponent(fileKey)}`;
}

/** The base as a URL shows it (host in lower case, no default port, no trailing slash), so spellings compare equal. */
function normalBase(base: string): string {
  const b = new URL(base);
  return (b.origin + b.pathname).replace(/\/+$/, '');
}

/** The key of one of our file URLs (the token-free form or the older staff-download form); null for any other URL. */
export function fileKeyOfUrl(url: URL, base: string | null): string | null {
  const path = FILE_PATHS.find((p) => url.pathname.endsWith(p));
  if (!path) return null;
  // With a configured base, only URLs under it are ours; without one the origin is the request's,
  // which is not known here, and the unguessable key is what names the file.
  if (base !== null && url.origin + url.pathname !== normalBase(base) + path) return null;
  const key = url.searchParams.get('fileKey');
  return isFileKey(key) ? key : null;
}

/**
 * Lets the face service read our own file URLs from storage instead of over HTTP: the service's
 * public origin may not be reachable from itself, photo URLs may not reach private addresses, and
 * the older download URLs need a staff token the face service does not hold.
 */
export function storagePhotoResolver(
  base: string | null,
  open: (fileKey: string) => Promise<StoredObject | null>,
): PhotoResolver {
  return {
    handles: (url) => fileKeyOfUrl(url, base) !== null,
    async read(url, { maxBytes, signal }) {
      const object = await open(fileKeyOfUrl(url, base)!);
      if (!object) throw new Error('no stored file has this key');
      const chunks: Buffer[] = [];
      let total = 0;
      try {
        for await (const chunk of object.stream) {
          signal.throwIfAborted();
          chunks.push(chunk as Buffer);
          total += (chunk as Buffer).length;
          // One byte past the limit is enough for the reader to refuse the photo.
          if (total > maxBytes) break;
        }
      } finally {
        object.stream.destroy();
      }
      return Buffer.concat(chunks);
    },
  };
}
