import type { ColumnType, Generated } from 'kysely';
import type { Audit, Timestamp, StorageKind } from './common.js';
// Tables written only by the platform layer (src/platform: sessions, operation log, face registry, stored files) (docs/architecture.md §4.3).

export interface OAuth2TokenTable {
  id: Generated<number>;
  access_hash: string;
  refresh_hash: string;
  account_id: number;
  account_kind: string;
  channel: string;
  access_expires_at: Timestamp;
  refresh_expires_at: Timestamp;
  client_ip: string | null;
  session_id: string | null;
  created_at: Generated<Date>;
}

export interface OperateLogTable {
  id: Generated<number>;
  module: string;
  action: string;
  account_kind: string | null;
  account_id: number | null;
  account_name: string | null;
  ip: string | null;
  user_agent: string | null;
  method: string | null;
  path: string | null;
  biz_id: string | null;
  success: boolean;
  errcode: Generated<number>;
  duration_ms: number;
  created_at: Generated<Date>;
}

export interface LoginLogTable {
  id: Generated<number>;
  account_kind: string;
  account_id: number | null;
  username: string;
  ip: string | null;
  user_agent: string | null;
  success: boolean;
  errcode: Generated<number>;
  message: string | null;
  created_at: Generated<Date>;
}

export interface OpenAppTable extends Audit {
  id: Generated<number>;
  app_key: string;
  app_secret: string;
  name: string;
  status: Generated<number>;
}

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

/** A person enrolled in the local face registry (FACE_PROVIDER=local). */
export interface FacePersonTable {
  id: Generated<number>;
  group_id: string;
  person_id: string;
  name: string;
  /** hex sha256 of the enrolled photo's bytes: what a search matches */
  image_sha256: string;
  image_format: 'jpeg' | 'png';
  image_width: number;
  image_height: number;
  created_at: ColumnType<Date, Date | string | undefined, never>;
}
