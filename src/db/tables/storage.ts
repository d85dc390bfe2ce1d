import type { ColumnType, Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from './common.js';

export type StorageKind = 'local' | 's3';

/** One stored file: what downloads are authorised against and duplicates are found by. */
export interface FileObjectTable {
  id: Generated<number>;
  file_key: string;
  /** the client's name for it: a label for Content-Disposition, never a path */
  file_name: string;
  size: number;
  /** sniffed from the content, never taken from the name or the declared type */
  content_type: string;
  sha256: string;
  storage: StorageKind;
  /** which operation stored it (upload, base64, multipart, face-check …) */
  source: string;
  uploader_kind: string | null;
  uploader_id: number | null;
  uploader_ip: string | null;
  /** the owner scope: the uploading staff user's merchant and shop; null for platform and open-channel uploads */
  merchant_id: number | null;
  shop_id: number | null;
  created_at: ColumnType<Date, Date | string | undefined, never>;
}

/** 1 receiving chunks, 2 being completed by one request, 3 completed */
export type MultipartStatus = 1 | 2 | 3;

export interface MultipartUploadTable {
  id: Generated<number>;
  /** what clients are given: 32 random hex characters */
  upload_id: string;
  file_key: string;
  storage: StorageKind;
  /** the backend's own id of the multipart upload (S3 UploadId, or the local parts folder) */
  backend_upload_id: string;
  file_name: string;
  /** the fileKey the client sends with every chunk (a label; the first chunk fixes it) */
  client_file_key: string | null;
  /** fixed by the first chunk that arrives */
  total_chunks: number | null;
  /** sniffed from chunk 1 */
  content_type: string | null;
  status: Generated<MultipartStatus>;
  completing_at: NullableTimestamp;
  file_object_id: number | null;
  uploader_kind: string;
  uploader_id: number;
  merchant_id: number | null;
  shop_id: number | null;
  created_at: Generated<Date>;
  /** last activity: abandoned uploads are cleaned 24 h after it */
  updated_at: Timestamp;
}

export interface MultipartUploadPartTable {
  upload_pk: number;
  part_number: number;
  /** the part tag the backend answered (S3 ETag; the part's sha256 locally) */
  etag: string;
  size: number;
  sha256: string;
  updated_at: Generated<Date>;
}
