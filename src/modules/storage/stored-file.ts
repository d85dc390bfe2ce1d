import { badRequest } from '../../platform/errors.js';
import { isFileKey, type FileRecord, type Storage, type StoredObject } from '../../platform/storage/index.js';
import type { ByteRange } from '../../platform/storage/object-store.js';
import { fileNotFound } from './storage.errors.js';

/**
 * What the token-free file route and the staff download share in serving a stored file: finding its
 * record, opening its bytes, and the type text is served with.
 */

/** The record of a key an upload answered: 400 for a malformed key, 404 for one no file has. */
export async function findStoredFile(storage: Storage, fileKey: string): Promise<{ key: string; record: FileRecord }> {
  const key = fileKey.trim();
  if (!isFileKey(key)) throw badRequest('fileKey is invalid: send the fileKey an upload answered');
  const record = await storage.find(key);
  if (!record) throw fileNotFound();
  return { key, record };
}

/** The file's bytes, or the range of them; 404 when the record outlived its object. */
export async function openStoredObject(storage: Storage, key: string, range?: ByteRange): Promise<StoredObject> {
  const object = await storage.objects.open(key, range);
  if (!object) throw fileNotFound();
  return object;
}

/** Text is served with its charset (records hold the sniffed type without one). */
export const withCharset = (contentType: string): string =>
  contentType.startsWith('text/') ? `${contentType}; charset=utf-8` : contentType;
