import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { assertObjectKey, MultipartGoneError, type ByteRange, type ObjectStore } from './object-store.js';

export interface S3Settings {
  /** an S3-compatible endpoint (MinIO, Ceph, a cloud's S3 API); null for AWS itself */
  endpoint: string | null;
  bucket: string;
  region: string | null;
  accessKey: string;
  secretKey: string;
}

const MIB = 1024 * 1024;

function isMissing(err: unknown, ...names: string[]): boolean {
  const e = err as { name?: string; Code?: string; $metadata?: { httpStatusCode?: number } } | null;
  return !!e && (names.includes(e.name ?? '') || names.includes(e.Code ?? '') || e.$metadata?.httpStatusCode === 404);
}

/**
 * An S3-compatible bucket through the AWS SDK v3, with S3's own multipart upload. Checksums are sent
 * only where the API requires them: the SDK's default (a CRC trailer on every upload, in aws-chunked
 * encoding) is not understood by many S3-compatible servers, which then store the framing as data.
 */
export function createS3Store(settings: S3Settings): ObjectStore {
  const client = new S3Client({
    ...(settings.endpoint ? { endpoint: settings.endpoint, forcePathStyle: true } : {}),
    region: settings.region ?? 'us-east-1',
    credentials: { accessKeyId: settings.accessKey, secretAccessKey: settings.secretKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const Bucket = settings.bucket;

  async function get(key: string, range?: ByteRange): Promise<{ size: number; stream: Readable } | null> {
    try {
      const out = await client.send(
        new GetObjectCommand({
          Bucket,
          Key: assertObjectKey(key),
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      // A ranged answer's length is the range's; the whole object's is after the slash of its Content-Range.
      const whole = range ? Number(/\/(\d+)$/.exec(out.ContentRange ?? '')?.[1]) : Number(out.ContentLength ?? 0);
      return { size: whole, stream: out.Body as Readable };
    } catch (err) {
      if (isMissing(err, 'NoSuchKey', 'NotFound')) return null;
      throw err;
    }
  }

  return {
    kind: 's3',
    minPartBytes: 5 * MIB,
    maxParts: 10_000,

    async putFile(key, filePath, meta) {
      await client.send(
        new PutObjectCommand({
          Bucket,
          Key: assertObjectKey(key),
          Body: createReadStream(filePath, { highWaterMark: MIB }),
          ContentLength: meta.size,
          ContentType: meta.contentType,
        }),
      );
    },

    async putBytes(key, bytes, meta) {
      await client.send(
        new PutObjectCommand({
          Bucket,
          Key: assertObjectKey(key),
          Body: bytes,
          ContentLength: bytes.byteLength,
          ContentType: meta.contentType,
        }),
      );
    },

    open: get,

    async remove(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: assertObjectKey(key) }));
    },

    async createMultipart(key, meta) {
      const out = await client.send(
        new CreateMultipartUploadCommand({ Bucket, Key: assertObjectKey(key), ContentType: meta.contentType }),
      );
      if (!out.UploadId) throw new Error('the storage backend answered no UploadId');
      return out.UploadId;
    },

    async putPart(key, uploadHandle, partNumber, filePath, part) {
      try {
        const out = await client.send(
          new UploadPartCommand({
            Bucket,
            Key: assertObjectKey(key),
            UploadId: uploadHandle,
            PartNumber: partNumber,
            Body: createReadStream(filePath, { highWaterMark: MIB }),
            ContentLength: part.size,
          }),
        );
        if (!out.ETag) throw new Error('the storage backend answered no ETag for the part');
        return out.ETag;
      } catch (err) {
        if (isMissing(err, 'NoSuchUpload')) throw new MultipartGoneError();
        throw err;
      }
    },

    async completeMultipart(key, uploadHandle, parts) {
      try {
        await client.send(
          new CompleteMultipartUploadCommand({
            Bucket,
            Key: assertObjectKey(key),
            UploadId: uploadHandle,
            MultipartUpload: {
              Parts: [...parts]
                .sort((a, b) => a.partNumber - b.partNumber)
                .map((p) => ({ PartNumber: p.partNumber, ETag: p.etag })),
            },
          }),
        );
      } catch (err) {
        if (isMissing(err, 'NoSuchUpload')) throw new MultipartGoneError();
        throw err;
      }
      // The parts arrived in any order, so the whole file's sha256 is only known by reading it once.
      const object = await get(key);
      if (!object) throw new Error('the completed object cannot be read back');
      const hash = createHash('sha256');
      let size = 0;
      for await (const chunk of object.stream) {
        size += (chunk as Buffer).length;
        hash.update(chunk as Buffer);
      }
      return { size, sha256: hash.digest('hex') };
    },

    async abortMultipart(key, uploadHandle) {
      try {
        await client.send(
          new AbortMultipartUploadCommand({ Bucket, Key: assertObjectKey(key), UploadId: uploadHandle }),
        );
      } catch (err) {
        if (!isMissing(err, 'NoSuchUpload')) throw err;
      }
    },

    async close() {
      client.destroy();
    },
  };
}
