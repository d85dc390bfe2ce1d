import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from './db/database.js';
import type { Store } from './store/store.js';
import { createFace, type FaceService } from './face/index.js';
import { createSmsServices, type SmsServices } from './sms/index.js';
import { createStorage, type Storage } from './storage/index.js';

/** Outside services the modules share (docs/architecture.md §2): SMS, the face service and object storage. */
export interface PlatformServices {
  sms: SmsServices;
  face: FaceService;
  storage: Storage;
}

export async function createPlatformServices(
  deps: { config: Config; db: Db; store: Store; logger: FastifyBaseLogger },
  overrides: Partial<PlatformServices> = {},
): Promise<PlatformServices> {
  const { config, db, store, logger } = deps;
  if (config.smsProvider === 'log' && config.nodeEnv === 'production' && !overrides.sms) {
    logger.warn('SMS_PROVIDER=log: verification codes are written to the log and no SMS is sent (demo only)');
  }
  const [sms, face] = await Promise.all([
    overrides.sms ?? createSmsServices(config, { store, logger: logger.child({ component: 'sms' }) }),
    overrides.face ?? createFace(config, { db }),
  ]);
  // Registers a reader of its own file URLs with the face service.
  const storage = overrides.storage ?? (await createStorage(config, { db, photos: face.photos }));
  return { sms, face, storage };
}
