import { randomBytes } from 'node:crypto';
import type { Db } from '../../platform/db/database.js';
import { inTransaction, loggedTransaction } from '../../platform/db/transaction.js';
import { badRequest } from '../../platform/errors.js';
import type { AuthedContext } from '../../platform/http/context.js';
import { recordOperation } from '../../platform/oplog/oplog.js';
import type { UploadedFile } from '../../platform/upload/receive.js';
import {
  DOCUMENT_TYPES,
  MultipartGoneError,
  newFileKey,
  sniffFile,
  type FileRecord,
  type Storage,
} from '../../platform/storage/index.js';
import { insertFileObject } from '../../platform/storage/file-object.repository.js';
import { checkClientFileKey, checkFileName } from './file-names.js';
import { foreignUpload, fileEmpty, typeNotAllowed, unknownUpload, uploadComplete } from './storage.errors.js';
import * as repo from './multipart.repository.js';
import type { MultipartAnswer, MultipartChunk, MultipartInit } from './storage.schemas.js';
import { fileOf, ownerOf, DOCUMENTS_ALLOWED } from './upload-common.js';

const UPLOAD_ID = /^[0-9a-f]{32}$/;
/** Uploads without a chunk for this long are abandoned and cleaned up. */
export const ABANDONED_AFTER_MS = 24 * 60 * 60 * 1000;
/** A completion that has not finished after this long died with its request; a chunk sent again may take it over. */
const COMPLETION_STALE_MS = 10 * 60 * 1000;
const CLEANUP_BATCH = 100;

export interface MultipartDeps {
  db: Db;
  storage: Storage;
  /** the clock of activity stamps and of the 24 h clean-up (tests move it) */
  now?: () => Date;
}

/**
 * Chunked uploads (spec A 4.9 rule 1) on the storage backend's own multipart upload. Each chunk is
 * stored as a part and its tag recorded; the request that records the last missing part claims the
 * completion (a conditional status move under the upload's row lock, so exactly one does), joins the
 * parts outside any transaction and records the file.
 */
export function createMultipartService(deps: MultipartDeps) {
  const { db, storage } = deps;
  const objects = storage.objects;
  const now = deps.now ?? (() => new Date());

  // Spec A 4.9 rule 1: every chunk's answer carries the file name and URL, since chunks sent in
  // parallel complete in any order. The key is fixed at init, so the URL is known from the first
  // chunk; until the upload completes it answers as for an unknown file (no record yet).
  function answer(
    upload: repo.MultipartUpload,
    total: number,
    received: number,
    file: FileRecord | null,
    origin: string,
  ): MultipartAnswer {
    return {
      fileName: upload.fileName,
      fileUrl: storage.urlOf(upload.fileKey, origin),
      fileKey: file?.fileKey ?? null,
      size: file?.size ?? null,
      contentType: file?.contentType ?? null,
      completed: file !== null,
      receivedChunks: received,
      totalChunks: total,
    };
  }

  /** A chunk of an upload that is already complete: the same bytes again get the completed answer. */
  async function again(
    ctx: AuthedContext,
    upload: repo.MultipartUpload,
    input: MultipartChunk,
    chunk: UploadedFile,
    origin: string,
  ): Promise<MultipartAnswer> {
    const part = await repo.findPart(db, upload.id, input.chunkNumber);
    const file = upload.fileObjectId !== null ? await storage.find(upload.fileKey) : null;
    if (!part || part.sha256 !== chunk.sha256 || !file) throw uploadComplete();
    await recordOperation(db, ctx, upload.uploadId);
    return answer(upload, input.totalChunks, input.totalChunks, file, origin);
  }

  function checkAgainst(upload: repo.MultipartUpload, input: MultipartChunk, clientKey: string): void {
    if (upload.totalChunks !== null && upload.totalChunks !== input.totalChunks) {
      throw badRequest(`totalChunks must be ${upload.totalChunks} for this upload, as its first chunk said`);
    }
    if (upload.clientFileKey !== null && upload.clientFileKey !== clientKey) {
      throw badRequest('fileKey differs from the one the earlier chunks of this upload carried');
    }
  }

  async function complete(
    ctx: AuthedContext,
    upload: repo.MultipartUpload,
    parts: repo.PartRow[],
    contentType: string,
    origin: string,
  ): Promise<MultipartAnswer> {
    let joined: { size: number; sha256: string } | null = null;
    try {
      joined = await objects.completeMultipart(upload.fileKey, upload.backendUploadId, parts);
      const whole = joined;
      const file = await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const record = await insertFileObject(trx, {
            fileKey: upload.fileKey,
            fileName: upload.fileName,
            size: whole.size,
            contentType,
            sha256: whole.sha256,
            storage: objects.kind,
            source: 'multipart',
            owner: ownerOf(ctx),
          });
          await repo.markCompleted(trx, upload.id, record.id, now());
          return record;
        },
        () => upload.uploadId,
      );
      return answer(upload, parts.length, parts.length, file, origin);
    } catch (err) {
      // Joined but not recorded: no object without its record.
      if (joined) await objects.remove(upload.fileKey).catch(() => {});
      await repo.releaseClaim(db, upload.id).catch(() => {});
      if (err instanceof MultipartGoneError) throw unknownUpload();
      throw err;
    }
  }

  return {
    async init(ctx: AuthedContext, input: MultipartInit): Promise<{ uploadId: string }> {
      const fileName = checkFileName(input.fileName, 'fileName');
      const fileKey = newFileKey(now());
      // The content is not seen yet: its sniffed type goes into the record, not the object's metadata.
      const backendUploadId = await objects.createMultipart(fileKey, { contentType: 'application/octet-stream' });
      const uploadId = randomBytes(16).toString('hex');
      const owner = ownerOf(ctx);
      try {
        await repo.insertUpload(db, {
          uploadId,
          fileKey,
          storage: objects.kind,
          backendUploadId,
          fileName,
          owner: { ...owner, kind: ctx.account.kind, id: ctx.account.id },
          now: now(),
        });
      } catch (err) {
        await objects.abortMultipart(fileKey, backendUploadId).catch(() => {});
        throw err;
      }
      return { uploadId };
    },

    async uploadChunk(
      ctx: AuthedContext,
      input: MultipartChunk,
      files: UploadedFile[],
      origin: string,
    ): Promise<MultipartAnswer> {
      const chunk = fileOf(files);
      const clientKey = checkClientFileKey(input.fileKey);
      if (input.chunkNumber > input.totalChunks) {
        throw badRequest(`chunkNumber is out of range: must be between 1 and totalChunks (${input.totalChunks})`);
      }
      const upload = UPLOAD_ID.test(input.uploadId) ? await repo.findUpload(db, input.uploadId) : null;
      if (!upload) throw unknownUpload();
      if (upload.uploaderKind !== ctx.account.kind || upload.uploaderId !== ctx.account.id) throw foreignUpload();
      checkAgainst(upload, input, clientKey);
      if (upload.status === repo.Status.COMPLETED) return again(ctx, upload, input, chunk, origin);
      const completingElsewhere =
        upload.status === repo.Status.COMPLETING &&
        upload.completingAt !== null &&
        now().getTime() - upload.completingAt.getTime() < COMPLETION_STALE_MS;
      // Every part is in and another request is joining them: replacing a part now would change a tag it uses.
      if (completingElsewhere) return answer(upload, input.totalChunks, input.totalChunks, null, origin);
      if (chunk.size === 0) throw fileEmpty();
      if (input.chunkNumber < input.totalChunks && chunk.size < objects.minPartBytes) {
        throw badRequest(
          `the chunk is too small: every chunk but the last must hold at least ${objects.minPartBytes} bytes on this storage`,
        );
      }
      let contentType: string | null = null;
      if (input.chunkNumber === 1) {
        const sniffed = await sniffFile(chunk.tempPath, upload.fileName);
        if (!sniffed || !DOCUMENT_TYPES.has(sniffed.mime)) throw typeNotAllowed(DOCUMENTS_ALLOWED);
        contentType = sniffed.mime;
      }

      let etag: string;
      try {
        etag = await objects.putPart(upload.fileKey, upload.backendUploadId, input.chunkNumber, chunk.tempPath, chunk);
      } catch (err) {
        if (!(err instanceof MultipartGoneError)) throw err;
        // Completed or cleaned up while this chunk was on its way.
        const current = await repo.findUpload(db, input.uploadId);
        if (current?.status === repo.Status.COMPLETED) return again(ctx, current, input, chunk, origin);
        throw unknownUpload();
      }

      const step = await inTransaction(db, async (trx) => {
        const locked = await repo.findUpload(trx, input.uploadId, true);
        if (!locked) throw unknownUpload();
        checkAgainst(locked, input, clientKey);
        const at = now();
        await repo.upsertPart(
          trx,
          locked.id,
          { partNumber: input.chunkNumber, etag, size: chunk.size, sha256: chunk.sha256 },
          at,
        );
        const received = await repo.countParts(trx, locked.id);
        const staleClaim =
          locked.status === repo.Status.COMPLETING &&
          (locked.completingAt === null || at.getTime() - locked.completingAt.getTime() >= COMPLETION_STALE_MS);
        const claim = received === input.totalChunks && (locked.status === repo.Status.RECEIVING || staleClaim);
        await repo.updateUpload(trx, locked.id, {
          totalChunks: input.totalChunks,
          clientFileKey: clientKey,
          contentType,
          status: claim ? repo.Status.COMPLETING : locked.status,
          completingAt: claim ? at : locked.completingAt,
          now: at,
        });
        if (!claim) {
          await recordOperation(trx, ctx, locked.uploadId);
          return { claim: null, locked, received };
        }
        return {
          claim: { parts: await repo.listParts(trx, locked.id), contentType: contentType ?? locked.contentType },
          locked,
          received,
        };
      });
      if (!step.claim) return answer(step.locked, input.totalChunks, step.received, null, origin);
      // Chunk 1 was sniffed when it arrived, so a claim always knows the type.
      return complete(ctx, step.locked, step.claim.parts, step.claim.contentType ?? 'application/octet-stream', origin);
    },

    /**
     * Deletes uploads without a chunk for 24 h (completed ones too: their files stay) and drops their
     * parts on the backend. Safe on several instances at once (skip locked); a backend failure is
     * reported after the rest are done.
     */
    async cleanupAbandoned(at: Date = now()): Promise<{ removed: number }> {
      const before = new Date(at.getTime() - ABANDONED_AFTER_MS);
      let removed = 0;
      const failures: unknown[] = [];
      for (;;) {
        const batch = await inTransaction(db, (trx) => repo.deleteStaleUploads(trx, before, CLEANUP_BATCH));
        removed += batch.length;
        for (const stale of batch) {
          if (stale.status === repo.Status.COMPLETED || stale.storage !== objects.kind) continue;
          await objects
            .abortMultipart(stale.fileKey, stale.backendUploadId)
            .catch((err: unknown) => failures.push(err));
        }
        if (batch.length < CLEANUP_BATCH) break;
      }
      if (failures.length > 0) {
        throw new Error(`${failures.length} abandoned multipart uploads could not be aborted on the storage backend`, {
          cause: failures[0],
        });
      }
      return { removed };
    },
  };
}

export type MultipartService = ReturnType<typeof createMultipartService>;
