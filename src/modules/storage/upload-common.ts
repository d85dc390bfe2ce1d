import type { RequestContext } from '../../platform/http/context.js';
import type { FileOwner } from '../../platform/storage/index.js';
import type { UploadedFile } from '../../platform/upload/receive.js';
import { fileRequired } from './storage.errors.js';

export const DOCUMENTS_ALLOWED =
  'this type of file cannot be uploaded: send images, PDF, Office and OpenDocument files, zip/gzip/7z/rar archives, audio, video, plain text and CSV';
export const FACE_IMAGES_ALLOWED = 'the image must be a JPEG or PNG';

/** The part named `file` (the spec's MultipartFile). */
export function fileOf(files: UploadedFile[]): UploadedFile {
  const file = files.find((f) => f.field === 'file');
  if (!file) throw fileRequired();
  return file;
}

/**
 * Who a stored file belongs to: a staff user's merchant and shop are its owner scope (downloads
 * are authorised against them); open apps and login-free callers own nothing, so only platform
 * staff may download what they stored.
 */
export function ownerOf(ctx: RequestContext): FileOwner {
  const a = ctx.account;
  const staff = a?.kind === 'admin';
  return {
    kind: a?.kind ?? null,
    id: a?.id ?? null,
    ip: ctx.ip || null,
    merchantId: staff ? a.merchantId : null,
    shopId: staff ? a.shopId : null,
  };
}
