import { createHash } from 'node:crypto';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';
import type { Readable } from 'node:stream';

/** Pre-serialised JSON data (cached region tree): sent as bytes, wrapped in the success envelope once. */
export class RawJson {
  private envelope: Buffer | null = null;
  private tag: string | null = null;
  private readonly encodings = new Map<ContentEncoding, Buffer>();
  constructor(readonly json: string) {}

  get body(): Buffer {
    this.envelope ??= Buffer.from(`{"errcode":0,"errmsg":"success","data":${this.json}}`);
    return this.envelope;
  }

  /** A strong validator of the answer's bytes. */
  get etag(): string {
    this.tag ??= `"${createHash('sha256').update(this.body).digest('base64url').slice(0, 27)}"`;
    return this.tag;
  }

  /**
   * The answer compressed, once per instance: cached reads keep their RawJson for a cache generation,
   * so the large region tree is compressed once per write, not once per request.
   */
  encoded(encoding: ContentEncoding): Buffer {
    let out = this.encodings.get(encoding);
    if (!out) {
      out =
        encoding === 'br'
          ? brotliCompressSync(this.body, {
              params: {
                [zlibConstants.BROTLI_PARAM_QUALITY]: 6,
                [zlibConstants.BROTLI_PARAM_SIZE_HINT]: this.body.length,
              },
            })
          : gzipSync(this.body, { level: 6 });
      this.encodings.set(encoding, out);
    }
    return out;
  }
}

export type ContentEncoding = 'br' | 'gzip';

/** Answers below this size gain less from compression than the header costs. */
export const COMPRESS_MIN_BYTES = 1024;

/** The encoding to answer with for an Accept-Encoding header: brotli, then gzip, else none (q=0 refuses one). */
export function chooseEncoding(acceptEncoding: string | undefined): ContentEncoding | null {
  if (!acceptEncoding) return null;
  const accepted = new Set<string>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q && Number(q.slice(2)) === 0) continue;
    accepted.add(name.trim());
  }
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip') || accepted.has('*')) return 'gzip';
  return null;
}

/** True when an If-None-Match header lists this ETag (or `*`); weak comparison, as RFC 9110 asks for it. */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const bare = etag.replace(/^W\//, '');
  return ifNoneMatch.split(',').some((t) => {
    const v = t.trim();
    return v === '*' || v.replace(/^W\//, '') === bare;
  });
}

/** Raw bytes for file answers (captcha image, exports, downloads): no envelope unless they fail. */
export class FileResponse {
  constructor(
    readonly contentType: string,
    readonly data: Buffer | Readable,
    readonly options: { fileName?: string; headers?: Record<string, string> } = {},
  ) {}
}

/**
 * Content-Disposition with the original name: an ASCII fallback (other characters, quotes and
 * backslashes replaced) and the exact name in RFC 8187 form, where only attr-chars stay unencoded
 * (encodeURIComponent leaves '()* as they are).
 */
export function contentDisposition(fileName: string, disposition: 'attachment' | 'inline' = 'attachment'): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const exact = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${disposition}; filename="${ascii}"; filename*=UTF-8''${exact}`;
}
