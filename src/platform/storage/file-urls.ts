import type { PhotoResolver } from '../face/photo-reader.js';
import { isFileKey } from './keys.js';
import type { StoredObject } from './object-store.js';

/** Where stored files are served (the storage module's download operation, spec A 4.9). */
export const DOWNLOAD_PATH = '/manage-api/oss/download';

/** The URL an upload answers: the public base (FILE_BASE_URL, else the request's origin), the download path, the key. */
export function fileUrl(base: string, fileKey: string): string {
  return `${base.replace(/\/+$/, '')}${DOWNLOAD_PATH}?fileKey=${encodeURIComponent(fileKey)}`;
}

/** The key of one of our file URLs; null for any other URL. */
export function fileKeyOfUrl(url: URL, base: string | null): string | null {
  if (!url.pathname.endsWith(DOWNLOAD_PATH)) return null;
  // With a configured base, only URLs under it are ours; without one the origin is the request's,
  // which is not known here, and the unguessable key is what names the file.
  if (base !== null && !(url.origin + url.pathname).startsWith(base + DOWNLOAD_PATH)) return null;
  const key = url.searchParams.get('fileKey');
  return isFileKey(key) ? key : null;
}

/**
 * Lets the face service read our own file URLs from storage instead of over HTTP (the download
 * operation needs a staff token the face service does not hold).
 */
export function storagePhotoResolver(base: string | null, open: (fileKey: string) => Promise<StoredObject | null>): PhotoResolver {
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
