import type { Config } from '../config.js';
import type { SharedCache } from './cache.js';
import type { Database, Db } from './db/database.js';
import type { Store } from './store/store.js';
import type { TokenService } from './auth/tokens.js';
import type { SessionValues } from './auth/session-values.js';
import type { SmsServices } from './sms/index.js';
import type { FaceService } from './face/index.js';
import type { Storage } from './storage/index.js';
import type { PermissionCatalog } from './auth/permission-catalog.js';

/** The shared infrastructure a module factory may draw on; each takes only what it uses. */
export interface Deps {
  config: Config;
  database: Database;
  db: Db;
  store: Store;
  cache: SharedCache;
  tokens: TokenService;
  sessionValues: SessionValues;
  /** SMS sender, verification codes and after-commit notifications */
  sms: SmsServices;
  face: FaceService;
  /** files in DATA_DIR/files or an S3 bucket, with their file_object records */
  storage: Storage;
  /** every permission the served routes declare (filled once all modules' routes are built) */
  permissions: PermissionCatalog;
}
