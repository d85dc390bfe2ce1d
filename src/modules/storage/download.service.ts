import { assertInScope } from '../../platform/auth/permissions.js';
import type { AuthedContext } from '../../platform/http/context.js';
import { FileResponse } from '../../platform/http/responses.js';
import type { Storage } from '../../platform/storage/index.js';
import { findStoredFile, openStoredObject, withCharset } from './stored-file.js';

/**
 * Downloads (spec A 4.9): the bytes streamed with the recorded type and size and the original
 * name. Authorised through the file record: platform staff may download every file; merchant and
 * shop staff the files stored by their merchant's or shop's users (403 for others'); files stored by
 * open apps or login-free calls belong to no merchant, so only platform staff may.
 */
export function createDownloadService(deps: { storage: Storage }) {
  const { storage } = deps;
  return {
    async download(ctx: AuthedContext, fileKey: string): Promise<FileResponse> {
      const { key, record } = await findStoredFile(storage, fileKey);
      assertInScope(ctx.account, { merchantId: record.owner.merchantId, shopId: record.owner.shopId });
      const object = await openStoredObject(storage, key);
      return new FileResponse(withCharset(record.contentType), object.stream, {
        fileName: record.fileName,
        headers: {
          'content-length': String(object.size),
          // Served as a download in the record's type: a browser must not guess another.
          'x-content-type-options': 'nosniff',
          'cache-control': 'private, no-store',
        },
      });
    },
  };
}

export type DownloadService = ReturnType<typeof createDownloadService>;
