import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { authed } from '../../platform/http/context.js';
import { defineRoute, type FileDoc, type RouteSpec } from '../../platform/http/routes.js';
import { base64Length } from '../../platform/upload/base64.js';
import type { DownloadService } from './download.service.js';
import type { FileService } from './file.service.js';
import type { MultipartService } from './multipart.service.js';
import {
  Base64UploadRequest,
  DownloadRequest,
  FaceCheckUploadResponse,
  FileFetchQuery,
  FileMultipartInitRequest,
  FileMultipartInitResponse,
  FileOnlyForm,
  FileUploadResponse,
  MultipartUploadRequest,
  MultipartUploadResponse,
} from './storage.schemas.js';
import type { UploadService } from './upload.service.js';
import { ErrorCode } from '../../platform/errors.js';
import { FaceError } from '../../platform/face/face.errors.js';

const tags = ['oss'];

/** A stored file's bytes as the OpenAPI document shows them: any media type, the one sniffed at upload. */
const STORED_FILE: FileDoc = {
  mediaTypes: ['application/octet-stream', '*/*'],
  description: 'The file, with the media type sniffed at upload',
  headers: {
    'Content-Disposition': {
      description: 'attachment; filename="…"; filename*=UTF-8\'\'… (the uploaded name)',
      required: true,
    },
  },
};
const FETCHED_FILE: FileDoc = {
  ...STORED_FILE,
  headers: {
    ETag: { description: 'the strong validator of the bytes', required: true },
    'Cache-Control': { description: 'private, max-age=31536000, immutable', required: true },
    'Accept-Ranges': { description: 'bytes' },
  },
  statuses: {
    206: {
      description: 'The byte range the Range header asked for',
      headers: { 'Content-Range': { description: 'bytes start-end/size', required: true } },
    },
    304: { description: 'Not modified: If-None-Match named the ETag', empty: true },
    416: {
      description: 'The range starts past the end of the file',
      headers: { 'Content-Range': { description: 'bytes */size', required: true } },
      empty: true,
    },
  },
};
const staff = { kinds: ['admin' as const] };
const UPLOAD = 'oss:upload';
const DOWNLOAD = 'oss:download';

/** The origin the client reached us at (honouring X-Forwarded-* only with TRUST_PROXY), for file URLs. */
const originOf = (request: FastifyRequest) => `${request.protocol}://${request.host}`;

/**
 * Spec A 4.9: chunked uploads and downloads on channel M, single uploads on channel O; and our own
 * token-free file route on channel O, which the file URLs uploads answer point at.
 */
export function storageRoutes(
  svc: { uploads: UploadService; multipart: MultipartService; downloads: DownloadService; files: FileService },
  config: Pick<Config, 'uploadMaxBytes' | 'face'>,
): RouteSpec[] {
  const base64Chars = base64Length(config.uploadMaxBytes);
  return [
    defineRoute({
      method: 'POST',
      path: '/oss/multipartFileInit',
      channels: ['manage'],
      auth: staff,
      permission: UPLOAD,
      summary: 'Start a chunked upload; answers the uploadId every chunk carries',
      tags,
      body: FileMultipartInitRequest,
      response: FileMultipartInitResponse,
      handler: (ctx, { body }) => svc.multipart.init(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/oss/multipartUpload',
      channels: ['manage'],
      auth: staff,
      permission: UPLOAD,
      operation: ['对象存储', '分片上传'],
      upload: { maxFiles: 1 },
      summary:
        'Upload one chunk (multipart part "file"); every chunk answers fileName and fileUrl (the URL serves the file once `completed`)',
      tags,
      body: MultipartUploadRequest,
      response: MultipartUploadResponse,
      handler: (ctx, { body, files }, { request }) =>
        svc.multipart.uploadChunk(authed(ctx), body, files, originOf(request)),
    }),
    defineRoute({
      method: 'ANY',
      path: '/oss/download',
      channels: ['manage'],
      auth: staff,
      permission: DOWNLOAD,
      summary:
        'Download a stored file by its fileKey (raw bytes; any method; fileKey in a JSON or form body or in the query string)',
      tags,
      body: DownloadRequest,
      response: 'file',
      file: STORED_FILE,
      handler: (ctx, { body }) => svc.downloads.download(authed(ctx), body.fileKey),
    }),
    defineRoute({
      method: 'GET',
      path: '/oss/file',
      errcodes: [ErrorCode.TOO_MANY_REQUESTS],
      channels: ['open'],
      auth: 'public',
      summary:
        'Login-free: a stored file by its fileKey (the fileUrl uploads answer; the unguessable key authorises). Immutable: cached privately for a year, 304 on If-None-Match; limited per client address',
      tags,
      query: FileFetchQuery,
      response: 'file',
      file: FETCHED_FILE,
      handler: async (ctx, { query }, { request, reply }) => {
        // Refusals (the envelope, HTTP 200 as everywhere) must not be kept by a cache in front of
        // the service in place of the file; the bytes replace this with their own caching.
        reply.header('cache-control', 'no-store');
        await svc.files.admit(ctx);
        const h = request.headers;
        const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
        const out = await svc.files.fetch(query.fileKey, {
          head: request.method === 'HEAD',
          ifNoneMatch: one(h['if-none-match']),
          range: one(h.range),
          ifRange: one(h['if-range']),
        });
        reply.code(out.status);
        return out.file;
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/oss/upload',
      channels: ['open'],
      auth: 'open',
      permission: UPLOAD,
      upload: { maxFiles: 1 },
      summary: 'Upload one file (multipart part "file"): documents, images, archives, media, text',
      tags,
      body: FileOnlyForm,
      response: FileUploadResponse,
      handler: (ctx, { files }, { request }) => svc.uploads.upload(ctx, files, originOf(request)),
    }),
    defineRoute({
      method: 'POST',
      path: '/oss/uploadBase64',
      channels: ['open'],
      auth: 'open',
      permission: UPLOAD,
      // The one JSON route above the 1 MiB body limit: a whole file as base64.
      bodyLimit: base64Chars + 64 * 1024,
      summary: 'Upload one file given as base64 in JSON {fileName, content}',
      tags,
      body: Base64UploadRequest(base64Chars),
      response: FileUploadResponse,
      handler: (ctx, { body }, { request }) => svc.uploads.uploadBase64(ctx, body, originOf(request)),
    }),
    defineRoute({
      method: 'POST',
      path: '/oss/uploadWithFaceCheck',
      errcodes: [FaceError, ErrorCode.TOO_MANY_REQUESTS],
      channels: ['open'],
      auth: 'public',
      upload: { maxFiles: 1, maxFileBytes: Math.min(config.uploadMaxBytes, config.face.imageMaxBytes) },
      filePart: {
        name: 'file',
        required: false,
        description:
          'the photo, JPEG or PNG (optional, spec A 4.9: without it nothing is stored and every field of the answer is null)',
      },
      guard: (ctx) => svc.uploads.admitFaceCheck(ctx),
      summary:
        'Login-free: upload a JPEG or PNG photo that shows a face (multipart part "file", optional: without it nothing is stored and the answer\'s fields are null); limited per client address',
      tags,
      body: FileOnlyForm,
      response: FaceCheckUploadResponse,
      handler: (ctx, { files }, { request }) => svc.uploads.uploadWithFaceCheck(ctx, files, originOf(request)),
    }),
  ];
}
