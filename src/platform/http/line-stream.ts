import { Readable } from 'node:stream';
import { createGzip, constants as zlibConstants } from 'node:zlib';
import { FileResponse } from './responses.js';

/** True when Accept-Encoding takes gzip (or anything, `*`), not refused with q=0. */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (!acceptEncoding) return false;
  return acceptEncoding.split(',').some((part) => {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return (name.trim() === 'gzip' || name.trim() === '*') && !(q && Number(q.slice(2)) === 0);
  });
}

/**
 * A streamed answer of text chunks (NDJSON lines), gzip-compressed when the client accepts it
 * (docs/architecture.md §5.8: raw bytes, an envelope only on failure). The producer reads what can fail
 * before it hands the chunks over, so such a failure still answers the envelope; a failure after the
 * first byte destroys the stream and the client sees a broken transfer, never a short answer that looks whole.
 */
export function streamedText(
  chunks: AsyncIterable<string>,
  o: { contentType: string; acceptEncoding: string | undefined },
): FileResponse {
  const source = Readable.from(chunks, { objectMode: false });
  const headers: Record<string, string> = { 'cache-control': 'no-store', vary: 'accept-encoding' };
  if (!acceptsGzip(o.acceptEncoding)) return new FileResponse(o.contentType, source, { headers });
  // Level 6 (zlib's default), flushed per chunk only by the stream's own buffering.
  const gzip = createGzip({ level: 6, chunkSize: 64 * 1024, flush: zlibConstants.Z_NO_FLUSH });
  source.on('error', (err) => gzip.destroy(err));
  source.pipe(gzip);
  headers['content-encoding'] = 'gzip';
  return new FileResponse(o.contentType, gzip, { headers });
}
