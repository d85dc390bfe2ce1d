import type { Config } from '../config.js';
import type { SharedCache } from './cache.js';
import type { Database, Db } from './db/database.js';
import type { Store } from './store/store.js';
import type { TokenService } from './auth/tokens.js';

/** The shared infrastructure a module factory may draw on; each takes only what it uses. */
export interface Deps {
  config: Config;
  database: Database;
  db: Db;
  store: Store;
  cache: SharedCache;
  tokens: TokenService;
}
