import type { Deps } from '../../platform/deps.js';
import { defineModule } from '../../platform/module.js';
import { createDownloadService } from './download.service.js';
import { createFileService } from './file.service.js';
import { createMultipartService } from './multipart.service.js';
import { storageRoutes } from './storage.routes.js';
import { createUploadService } from './upload.service.js';
import { StorageError } from './storage.errors.js';

const CLEANUP_EVERY_MS = 60 * 60 * 1000;

/** Object storage operations (spec A 4.9) over deps.storage (local folder or S3). */
export const storageModule = defineModule({
  name: 'storage',
  errcodes: [StorageError],
  routes: (deps: Deps) =>
    storageRoutes(
      {
        uploads: createUploadService(deps),
        multipart: createMultipartService(deps),
        downloads: createDownloadService(deps),
        files: createFileService(deps),
      },
      deps.config,
    ),
  jobs: (deps: Deps) => {
    const multipart = createMultipartService(deps);
    return [
      {
        name: 'storage.abandoned-multipart-uploads',
        everyMs: CLEANUP_EVERY_MS,
        run: async () => void (await multipart.cleanupAbandoned()),
      },
    ];
  },
});
