import type { Readable } from 'node:stream';

/**
 * Where file bytes live (docs/architecture.md §2): a folder under DATA_DIR/files, or an S3-compatible bucket.
 * Keys are the service's own (see keys.ts); a store refuses anything that is not a plain relative
 * key, so a client's name can never reach the file system or the bucket as a path.
 */
export interface ObjectStore {
  readonly kind: 'local' | 's3';
  /** Every part of a multipart upload but the last must be at least this large (S3: 5 MiB). */
  readonly minPartBytes: number;
  readonly maxParts: number;
  /** Stores the file under `key`. The file is taken: it may be moved away, so the caller must not reuse it. */
  putFile(key: string, filePath: string, meta: { size: number; contentType: string }): Promise<void>;
  putBytes(key: string, bytes: Uint8Array, meta: { contentType: string }): Promise<void>;
  /**
   * The object's bytes as a stream (only those of `range`, when given, which must lie within the
   * object), or null when there is no such object. `size` is always the whole object's.
   */
  open(key: string, range?: ByteRange): Promise<StoredObject | null>;
  /** Removes the object; an unknown key is not an error. */
  remove(key: string): Promise<void>;

  /** Starts a multipart upload of `key`; answers the backend's id of it. */
  createMultipart(key: string, meta: { contentType: string }): Promise<string>;
  /** Stores (or replaces) one part, taking the file; answers its part tag. Throws MultipartGoneError when the upload no longer exists. */
  putPart(
    key: string,
    uploadHandle: string,
    partNumber: number,
    filePath: string,
    part: { size: number; sha256: string },
  ): Promise<string>;
  /** Joins the parts, in part-number order, into the object; answers its size and sha256. */
  completeMultipart(key: string, uploadHandle: string, parts: PartTag[]): Promise<{ size: number; sha256: string }>;
  /** Drops the upload and its parts; an unknown upload is not an error. */
  abortMultipart(key: string, uploadHandle: string): Promise<void>;
  close(): Promise<void>;
}

export interface StoredObject {
  size: number;
  stream: Readable;
}

/** Bytes `start` to `end` of an object, both included (an HTTP Range). */
export interface ByteRange {
  start: number;
  end: number;
}

export interface PartTag {
  partNumber: number;
  etag: string;
  size: number;
}

/** The multipart upload was aborted or never existed on the backend (cleaned up meanwhile). */
export class MultipartGoneError extends Error {
  constructor() {
    super('the multipart upload no longer exists on the storage backend');
    this.name = 'MultipartGoneError';
  }
}

// Segments of letters, digits, '.', '_' and '-' that never start with '.': no '..', no hidden
// files, no leading '/', no backslash, no NUL.
const OBJECT_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

export function assertObjectKey(key: string): string {
  if (typeof key !== 'string' || key.length > 512 || !OBJECT_KEY.test(key)) throw new Error('not a valid object key');
  return key;
}
