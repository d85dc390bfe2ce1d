import type { Selectable } from 'kysely';
import type { StorageKind } from '../../db/tables/common.js';
import type { MultipartStatus, MultipartUploadTable } from '../../db/tables/storage.js';
import type { Executor } from '../../platform/db/executor.js';
import type { FileOwner } from '../../platform/storage/index.js';

export const Status = { RECEIVING: 1, COMPLETING: 2, COMPLETED: 3 } as const satisfies Record<string, MultipartStatus>;

export interface MultipartUpload {
  id: number;
  uploadId: string;
  fileKey: string;
  storage: StorageKind;
  backendUploadId: string;
  fileName: string;
  clientFileKey: string | null;
  totalChunks: number | null;
  contentType: string | null;
  status: MultipartStatus;
  completingAt: Date | null;
  fileObjectId: number | null;
  uploaderKind: string;
  uploaderId: number;
  updatedAt: Date;
}

export interface PartRow {
  partNumber: number;
  etag: string;
  size: number;
  sha256: string;
}

function toUpload(r: Selectable<MultipartUploadTable>): MultipartUpload {
  return {
    id: r.id,
    uploadId: r.upload_id,
    fileKey: r.file_key,
    storage: r.storage,
    backendUploadId: r.backend_upload_id,
    fileName: r.file_name,
    clientFileKey: r.client_file_key,
    totalChunks: r.total_chunks,
    contentType: r.content_type,
    status: r.status,
    completingAt: r.completing_at,
    fileObjectId: r.file_object_id,
    uploaderKind: r.uploader_kind,
    uploaderId: r.uploader_id,
    updatedAt: r.updated_at,
  };
}

export async function insertUpload(
  db: Executor,
  v: {
    uploadId: string;
    fileKey: string;
    storage: StorageKind;
    backendUploadId: string;
    fileName: string;
    owner: FileOwner & { kind: string; id: number };
    now: Date;
  },
): Promise<void> {
  await db
    .insertInto('multipart_upload')
    .values({
      upload_id: v.uploadId,
      file_key: v.fileKey,
      storage: v.storage,
      backend_upload_id: v.backendUploadId,
      file_name: v.fileName,
      uploader_kind: v.owner.kind,
      uploader_id: v.owner.id,
      merchant_id: v.owner.merchantId,
      shop_id: v.owner.shopId,
      created_at: v.now,
      updated_at: v.now,
    })
    .execute();
}

/** The upload, locked for the rest of the transaction when `forUpdate`. */
export async function findUpload(db: Executor, uploadId: string, forUpdate = false): Promise<MultipartUpload | null> {
  let q = db.selectFrom('multipart_upload').selectAll().where('upload_id', '=', uploadId);
  if (forUpdate) q = q.forUpdate();
  const r = await q.executeTakeFirst();
  return r ? toUpload(r) : null;
}

/** Records the part (a chunk sent again replaces its earlier tag). */
export async function upsertPart(db: Executor, uploadPk: number, part: PartRow, now: Date): Promise<void> {
  const values = { etag: part.etag, size: part.size, sha256: part.sha256, updated_at: now };
  await db
    .insertInto('multipart_upload_part')
    .values({ upload_pk: uploadPk, part_number: part.partNumber, ...values })
    .onConflict((oc) => oc.columns(['upload_pk', 'part_number']).doUpdateSet(values))
    .execute();
}

export async function countParts(db: Executor, uploadPk: number): Promise<number> {
  const r = await db
    .selectFrom('multipart_upload_part')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('upload_pk', '=', uploadPk)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function listParts(db: Executor, uploadPk: number): Promise<PartRow[]> {
  const rows = await db
    .selectFrom('multipart_upload_part')
    .select(['part_number', 'etag', 'size', 'sha256'])
    .where('upload_pk', '=', uploadPk)
    .orderBy('part_number')
    .execute();
  return rows.map((r) => ({ partNumber: r.part_number, etag: r.etag, size: Number(r.size), sha256: r.sha256 }));
}

export async function findPart(db: Executor, uploadPk: number, partNumber: number): Promise<PartRow | null> {
  const r = await db
    .selectFrom('multipart_upload_part')
    .select(['part_number', 'etag', 'size', 'sha256'])
    .where('upload_pk', '=', uploadPk)
    .where('part_number', '=', partNumber)
    .executeTakeFirst();
  return r ? { partNumber: r.part_number, etag: r.etag, size: Number(r.size), sha256: r.sha256 } : null;
}

export async function updateUpload(
  db: Executor,
  id: number,
  set: {
    totalChunks: number;
    clientFileKey: string;
    contentType: string | null;
    status: MultipartStatus;
    completingAt: Date | null;
    now: Date;
  },
): Promise<void> {
  await db
    .updateTable('multipart_upload')
    .set({
      total_chunks: set.totalChunks,
      client_file_key: set.clientFileKey,
      ...(set.contentType ? { content_type: set.contentType } : {}),
      status: set.status,
      completing_at: set.completingAt,
      updated_at: set.now,
    })
    .where('id', '=', id)
    .execute();
}

export async function markCompleted(db: Executor, id: number, fileObjectId: number, now: Date): Promise<void> {
  await db
    .updateTable('multipart_upload')
    .set({ status: Status.COMPLETED, file_object_id: fileObjectId, completing_at: null, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** Gives the completion back after a failure, so a chunk sent again can complete the upload. */
export async function releaseClaim(db: Executor, id: number): Promise<void> {
  await db
    .updateTable('multipart_upload')
    .set({ status: Status.RECEIVING, completing_at: null })
    .where('id', '=', id)
    .where('status', '=', Status.COMPLETING)
    .execute();
}

export interface StaleUpload {
  fileKey: string;
  storage: StorageKind;
  backendUploadId: string;
  status: MultipartStatus;
}

/**
 * Deletes up to `limit` uploads without activity since `before` (their parts go with them) and
 * answers them. Rows another instance is deleting (or a chunk request holds) are skipped, so
 * instances running the clean-up together never wait on or double-handle a row.
 */
export async function deleteStaleUploads(db: Executor, before: Date, limit: number): Promise<StaleUpload[]> {
  const rows = await db
    .deleteFrom('multipart_upload')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('multipart_upload')
        .select('id')
        .where('updated_at', '<', before)
        .orderBy('id')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .returning(['file_key', 'storage', 'backend_upload_id', 'status'])
    .execute();
  return rows.map((r) => ({
    fileKey: r.file_key,
    storage: r.storage,
    backendUploadId: r.backend_upload_id,
    status: r.status,
  }));
}
