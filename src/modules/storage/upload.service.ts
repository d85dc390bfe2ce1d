import { readFile, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../config.js';
import type { FaceService } from '../../platform/face/index.js';
import type { RequestContext } from '../../platform/http/context.js';
import { enforceRate } from '../../platform/rate-limit.js';
import { DOCUMENT_TYPES, FACE_IMAGE_TYPES, sniffFile, type Storage } from '../../platform/storage/index.js';
import type { Store } from '../../platform/store/store.js';
import { receiveBase64 } from '../../platform/upload/base64.js';
import type { UploadedFile } from '../../platform/upload/receive.js';
import { checkFileName } from './file-names.js';
import { fileEmpty, typeNotAllowed } from './storage.errors.js';
import type { Base64Upload, FaceCheckUploaded, FileUploaded } from './storage.schemas.js';
import { DOCUMENTS_ALLOWED, FACE_IMAGES_ALLOWED, fileOf, ownerOf } from './upload-common.js';

export interface UploadDeps {
  storage: Storage;
  face: FaceService;
  store: Store;
  config: Pick<Config, 'dataDir' | 'uploadMaxBytes' | 'faceUploadRatePerMin'>;
}

interface Policy {
  types: ReadonlySet<string>;
  allowed: string;
  source: string;
}

const DOCUMENTS: Omit<Policy, 'source'> = { types: DOCUMENT_TYPES, allowed: DOCUMENTS_ALLOWED };
const NO_FILE: FaceCheckUploaded = Object.freeze({
  fileName: null,
  fileUrl: null,
  fileKey: null,
  size: null,
  contentType: null,
});

/** Single-request uploads (spec A 4.9): a multipart file, base64 in JSON, and the face-checked image. */
export function createUploadService(deps: UploadDeps) {
  const { storage, face, store, config } = deps;
  const tempDir = path.join(config.dataDir, 'tmp');

  /** Sniffs, optionally checks, stores and records one received file. */
  async function keep(
    ctx: RequestContext,
    file: UploadedFile,
    fileName: string,
    policy: Policy,
    origin: string,
    check?: (f: UploadedFile) => Promise<void>,
  ): Promise<FileUploaded> {
    if (file.size === 0) throw fileEmpty();
    const sniffed = await sniffFile(file.tempPath, fileName);
    if (!sniffed || !policy.types.has(sniffed.mime)) throw typeNotAllowed(policy.allowed);
    if (check) await check(file);
    const record = await storage.saveFile(
      { path: file.tempPath, size: file.size, sha256: file.sha256 },
      { fileName, contentType: sniffed.mime, source: policy.source, owner: ownerOf(ctx) },
    );
    return {
      fileName: record.fileName,
      fileUrl: storage.urlOf(record.fileKey, origin),
      fileKey: record.fileKey,
      size: record.size,
      contentType: record.contentType,
    };
  }

  // A part without a name gets a neutral one; a name with control characters is refused.
  const nameOf = (file: UploadedFile) =>
    file.fileName.trim() === '' ? 'file' : checkFileName(file.fileName, 'the file name');

  return {
    upload(ctx: RequestContext, files: UploadedFile[], origin: string): Promise<FileUploaded> {
      const file = fileOf(files);
      return keep(ctx, file, nameOf(file), { ...DOCUMENTS, source: 'upload' }, origin);
    },

    async uploadBase64(ctx: RequestContext, input: Base64Upload, origin: string): Promise<FileUploaded> {
      const fileName = checkFileName(input.fileName, 'fileName');
      const file = await receiveBase64(input.content, {
        field: 'content',
        fileName,
        tempDir,
        maxBytes: config.uploadMaxBytes,
      });
      try {
        return await keep(ctx, file, fileName, { ...DOCUMENTS, source: 'base64' }, origin);
      } finally {
        // Ours to remove (multipart temporaries are the pipeline's); gone already when it was moved into storage.
        await unlink(file.tempPath).catch(() => {});
      }
    },

    /** Before the body is read: login-free, so limited per client address. */
    admitFaceCheck(ctx: RequestContext): Promise<void> {
      return enforceRate(store, 'face-upload', ctx.ip, config.faceUploadRatePerMin);
    },

    /**
     * The part `file` is optional (spec A 4.9 "not required"): without it, or with the empty nameless
     * part a browser sends for a file input left empty, nothing is stored or checked and every field
     * of the answer is null.
     */
    async uploadWithFaceCheck(ctx: RequestContext, files: UploadedFile[], origin: string): Promise<FaceCheckUploaded> {
      const file = files.find((f) => f.field === 'file');
      if (!file || (file.size === 0 && file.fileName.trim() === '')) return NO_FILE;
      // The route's limit keeps the image within the face service's size, so reading it whole is bounded.
      return keep(
        ctx,
        file,
        nameOf(file),
        { types: FACE_IMAGE_TYPES, allowed: FACE_IMAGES_ALLOWED, source: 'face-check' },
        origin,
        async (f) => {
          await face.checkFaceImage(await readFile(f.tempPath));
        },
      );
    },
  };
}

export type UploadService = ReturnType<typeof createUploadService>;
