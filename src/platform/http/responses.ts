import type { Readable } from 'node:stream';

/** Pre-serialised JSON data (cached region tree): sent as bytes, wrapped in the success envelope once. */
export class RawJson {
  private envelope: Buffer | null = null;
  constructor(readonly json: string) {}

  get body(): Buffer {
    this.envelope ??= Buffer.from(`{"errcode":0,"errmsg":"success","data":${this.json}}`);
    return this.envelope;
  }
}

/** Raw bytes for file answers (captcha image, exports, downloads): no envelope unless they fail. */
export class FileResponse {
  constructor(
    readonly contentType: string,
    readonly data: Buffer | Readable,
    readonly options: { fileName?: string; headers?: Record<string, string> } = {},
  ) {}
}

export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}
