import path from 'node:path';
import type { Config } from '../../config.js';
import type { Db } from '../db/database.js';
import type { PhotoReader } from '../face/photo-reader.js';
import { findFileObject, insertFileObject, type FileOwner, type FileRecord } from './file-object.repository.js';
import { fileUrl, storagePhotoResolver } from './file-urls.js';
import { newFileKey } from './keys.js';
import { createLocalStore } from './local-store.js';
import type { ObjectStore, StoredObject } from './object-store.js';

export { DOWNLOAD_PATH, fileKeyOfUrl, fileUrl, PUBLIC_FILE_PATH } from './file-urls.js';
export { findFilesBySha256, type FileOwner, type FileRecord } from './file-object.repository.js';
export { isFileKey, newFileKey } from './keys.js';
export { MultipartGoneError, type ObjectStore, type PartTag, type StoredObject } from './object-store.js';
export { DOCUMENT_TYPES, FACE_IMAGE_TYPES, sniffFile, type SniffedType } from './sniff.js';

export interface FileMeta {
  /** the client's name: a label for downloads, never a path */
  fileName: string;
  /** sniffed from the content (sniffFile), not the client's word */
  contentType: string;
  /** which operation stored it, for the record */
  source: string;
  owner: FileOwner;
}

/**
 * Object storage for every module (deps.storage): bytes in the configured backend, one `file_object`
 * record per file so downloads are authorised and duplicates can be found.
 */
export interface Storage {
  readonly objects: ObjectStore;
  /** Stores a received file (taken: it may be moved) under a new key, then records it. */
  saveFile(file: { path: string; size: number; sha256: string }, meta: FileMeta): Promise<FileRecord>;
  /** The record of a stored file. */
  find(fileKey: string): Promise<FileRecord | null>;
  /** The record and the bytes of a stored file; null when either is missing. */
  open(fileKey: string): Promise<{ record: FileRecord; object: StoredObject } | null>;
  /** The file's token-free URL under FILE_BASE_URL, or under `requestOrigin` when that is not set. */
  urlOf(fileKey: string, requestOrigin: string): string;
  close(): Promise<void>;
}

export async function createObjectStore(config: Pick<Config, 'storage' | 's3' | 'dataDir'>): Promise<ObjectStore> {
  if (config.storage === 'local') return createLocalStore(path.join(config.dataDir, 'files'));
  const { bucket, accessKey, secretKey, endpoint, region } = config.s3;
  if (!bucket || !accessKey || !secretKey)
    throw new Error('STORAGE=s3 needs S3_BUCKET, S3_ACCESS_KEY and S3_SECRET_KEY');
  // The AWS SDK loads only when S3 is chosen.
  const { createS3Store } = await import('./s3-store.js');
  return createS3Store({ bucket, accessKey, secretKey, endpoint, region });
}

export async function createStorage(
  config: Pick<Config, 'storage' | 's3' | 'dataDir' | 'fileBaseUrl'>,
  deps: { db: Db; photos?: PhotoReader; objects?: ObjectStore },
): Promise<Storage> {
  const objects = deps.objects ?? (await createObjectStore(config));
  const { db } = deps;

  const storage: Storage = {
    objects,
    async saveFile(file, meta) {
      const fileKey = newFileKey();
      await objects.putFile(fileKey, file.path, { size: file.size, contentType: meta.contentType });
      try {
        return await insertFileObject(db, {
          ...meta,
          fileKey,
          size: file.size,
          sha256: file.sha256,
          storage: objects.kind,
        });
      } catch (err) {
        // No object without its record.
        await objects.remove(fileKey).catch(() => {});
        throw err;
      }
    },
    find: (fileKey) => findFileObject(db, fileKey),
    async open(fileKey) {
      const record = await findFileObject(db, fileKey);
      if (!record) return null;
      const object = await objects.open(fileKey);
      return object ? { record, object } : null;
    },
    urlOf: (fileKey, requestOrigin) => fileUrl(config.fileBaseUrl ?? requestOrigin, fileKey),
    close: () => objects.close(),
  };
  deps.photos?.register(
    storagePhotoResolver(config.fileBaseUrl, async (key) => (await storage.open(key))?.object ?? null),
  );
  return storage;
}
