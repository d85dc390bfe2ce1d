import type { Selectable } from 'kysely';
import type { StorageKind } from '../../db/tables/common.js';
import type { FileObjectTable } from '../../db/tables/platform.js';
import type { Executor } from '../db/executor.js';

/** Who stored a file: the account (or none, for login-free uploads), its address and its owner scope. */
export interface FileOwner {
  kind: string | null;
  id: number | null;
  ip: string | null;
  merchantId: number | null;
  shopId: number | null;
}

export interface NewFileRecord {
  fileKey: string;
  fileName: string;
  size: number;
  contentType: string;
  sha256: string;
  storage: StorageKind;
  source: string;
  owner: FileOwner;
}

export interface FileRecord extends NewFileRecord {
  id: number;
  createdAt: Date;
}

function toRecord(r: Selectable<FileObjectTable>): FileRecord {
  return {
    id: r.id,
    fileKey: r.file_key,
    fileName: r.file_name,
    size: Number(r.size),
    contentType: r.content_type,
    sha256: r.sha256,
    storage: r.storage,
    source: r.source,
    owner: {
      kind: r.uploader_kind,
      id: r.uploader_id,
      ip: r.uploader_ip,
      merchantId: r.merchant_id,
      shopId: r.shop_id,
    },
    createdAt: r.created_at,
  };
}

export async function insertFileObject(db: Executor, v: NewFileRecord): Promise<FileRecord> {
  const r = await db
    .insertInto('file_object')
    .values({
      file_key: v.fileKey,
      file_name: v.fileName,
      size: v.size,
      content_type: v.contentType,
      sha256: v.sha256,
      storage: v.storage,
      source: v.source,
      uploader_kind: v.owner.kind,
      uploader_id: v.owner.id,
      uploader_ip: v.owner.ip,
      merchant_id: v.owner.merchantId,
      shop_id: v.owner.shopId,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toRecord(r);
}

export async function findFileObject(db: Executor, fileKey: string): Promise<FileRecord | null> {
  const r = await db.selectFrom('file_object').selectAll().where('file_key', '=', fileKey).executeTakeFirst();
  return r ? toRecord(r) : null;
}

/** Earlier records of the same bytes, newest first (duplicates). */
export async function findFilesBySha256(db: Executor, sha256: string, size: number, limit = 20): Promise<FileRecord[]> {
  const rows = await db
    .selectFrom('file_object')
    .selectAll()
    .where('sha256', '=', sha256)
    .where('size', '=', size)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(toRecord);
}
