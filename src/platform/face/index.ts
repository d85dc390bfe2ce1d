import type { Config } from '../../config.js';
import type { Db } from '../db/database.js';
import { createFaceService, type FaceService } from './face-service.js';
import { createLocalFaceBackend } from './local-provider.js';
import { createPhotoReader } from './photo-reader.js';

export { FaceError } from './face.errors.js';
export type { FaceMatch, FaceService, NewPerson } from './face-service.js';
export type { Photo, PhotoReader, PhotoResolver } from './photo-reader.js';

/** The face service FACE_PROVIDER names (config has checked its settings). Tencent's SDK loads only when chosen. */
export async function createFace(
  config: Pick<Config, 'faceProvider' | 'face' | 'tencent' | 'tencentIai'>,
  deps: { db: Db },
): Promise<FaceService> {
  const photos = createPhotoReader({
    maxBytes: config.face.imageMaxBytes,
    allowedHosts: config.face.photoAllowedHosts,
  });
  if (config.faceProvider === 'local')
    return createFaceService(createLocalFaceBackend({ db: deps.db, groupId: config.face.groupId }), photos);
  const { secretId, secretKey, region } = config.tencent;
  if (!secretId || !secretKey) throw new Error('FACE_PROVIDER=tencent needs TENCENT_SECRET_ID and TENCENT_SECRET_KEY');
  const { createTencentFaceBackend } = await import('./tencent-provider.js');
  const backend = createTencentFaceBackend({
    secretId,
    secretKey,
    region,
    endpoint: config.tencentIai.endpoint,
    groupId: config.face.groupId,
    matchThreshold: config.face.matchThreshold,
  });
  return createFaceService(backend, photos);
}
