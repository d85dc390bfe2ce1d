import type { Generated } from 'kysely';
import type { Timestamp, NullableTimestamp, StorageKind } from './common.js';
// Tables written only by the storage module (docs/architecture.md §4.3).

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
