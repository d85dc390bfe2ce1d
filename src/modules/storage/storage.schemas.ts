import { Type, type Static } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';

/** Spec A 2.8 (FileMultipartInitRequest, MultipartUploadRequest, FileUploadResponse) and our own shapes for A 4.9. */
const FileName = Type.String({
  minLength: 1,
  maxLength: 255,
  description: 'the name downloads are given: a file name, not a path',
});

export const FileMultipartInitRequest = Type.Object({ fileName: FileName }, { title: 'FileMultipartInitRequest' });
export type MultipartInit = Static<typeof FileMultipartInitRequest>;

export const FileMultipartInitResponse = Type.Object(
  { uploadId: Type.String({ description: 'send it with every chunk' }) },
  { title: 'FileMultipartInitResponse' },
);

export const MAX_CHUNKS = 10_000;

export const MultipartUploadRequest = Type.Object(
  {
    uploadId: Type.String({ minLength: 1, maxLength: 64 }),
    totalChunks: Type.Integer({
      minimum: 1,
      maximum: MAX_CHUNKS,
      description: 'fixed by the first chunk that arrives',
    }),
    chunkNumber: Type.Integer({
      minimum: 1,
      maximum: MAX_CHUNKS,
      description: '1 … totalChunks, in any order; a chunk may be sent again',
    }),
    fileKey: Type.String({
      minLength: 1,
      maxLength: 255,
      description: "the client's label of the upload, the same in every chunk (the object key is the service's own)",
    }),
  },
  { title: 'MultipartUploadRequest' },
);
export type MultipartChunk = Static<typeof MultipartUploadRequest>;

const uploaded = {
  fileName: Type.String(),
  fileUrl: Type.String({
    description: 'the URL of the file: anyone holding it may fetch it, without a token (/open-api/oss/file)',
  }),
  fileKey: Type.String({ description: 'the object key: what /open-api/oss/file and /manage-api/oss/download take' }),
  size: Type.Integer(),
  contentType: Type.String({ description: 'sniffed from the content' }),
};

export const FileUploadResponse = Type.Object(uploaded, { title: 'FileUploadResponse' });
export type FileUploaded = Static<typeof FileUploadResponse>;

export const MultipartUploadResponse = Type.Object(
  {
    fileName: Type.String(),
    fileUrl: Type.String({
      description:
        "the URL the file is served at, the same in every chunk's answer; until `completed` it answers as for an unknown file",
    }),
    fileKey: Nullable(
      Type.String({
        description:
          'the object key once `completed` (null before): what /open-api/oss/file and /manage-api/oss/download take',
      }),
    ),
    size: Nullable(uploaded.size),
    contentType: Nullable(uploaded.contentType),
    completed: Type.Boolean({
      description:
        'whether the file is whole: true in the answer that completed the upload (and to a chunk sent again afterwards)',
    }),
    receivedChunks: Type.Integer(),
    totalChunks: Type.Integer(),
  },
  { title: 'MultipartUploadResponse' },
);
export type MultipartAnswer = Static<typeof MultipartUploadResponse>;

/**
 * uploadWithFaceCheck: the part `file` is optional (spec A 4.9); without it nothing is stored and
 * every field is null.
 */
export const FaceCheckUploadResponse = Type.Object(
  {
    fileName: Nullable(uploaded.fileName),
    fileUrl: Nullable(uploaded.fileUrl),
    fileKey: Nullable(uploaded.fileKey),
    size: Nullable(uploaded.size),
    contentType: Nullable(uploaded.contentType),
  },
  {
    title: 'FaceCheckUploadResponse',
    description: 'the stored photo; every field null when the request carried no file',
  },
);
export type FaceCheckUploaded = Static<typeof FaceCheckUploadResponse>;

/** Multipart routes whose only part is the file. */
export const FileOnlyForm = Type.Object({}, { title: 'FileOnlyForm' });

export const Base64UploadRequest = (maxChars: number) =>
  Type.Object({
    fileName: FileName,
    content: Type.String({
      minLength: 1,
      maxLength: maxChars,
      description: 'the file as base64 (standard or URL-safe alphabet, or a data: URL), without line breaks',
    }),
  });
export type Base64Upload = { fileName: string; content: string };

export const DownloadRequest = Type.Object(
  {
    fileKey: Type.String({ minLength: 1, maxLength: 512, description: 'the fileKey an upload answered' }),
  },
  { title: 'DownloadRequest' },
);

export const FileFetchQuery = Type.Object(
  {
    fileKey: Type.String({
      minLength: 1,
      maxLength: 512,
      description: 'the fileKey an upload answered (its fileUrl carries it)',
    }),
  },
  { title: 'FileFetchQuery' },
);
