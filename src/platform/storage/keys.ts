import { randomBytes } from 'node:crypto';

/**
 * Object keys are generated, never taken from a client: `YYYY/MM/DD/<32 hex>` (the service time
 * zone's date, 128 random bits). Without an extension, because a chunked upload's key is chosen
 * before any of its bytes are seen; the sniffed type lives in the file record.
 */
export const FILE_KEY_PATTERN = '^\\d{4}/\\d{2}/\\d{2}/[0-9a-f]{32}$';
const FILE_KEY = new RegExp(FILE_KEY_PATTERN);

export function newFileKey(now: Date = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}/${pad(now.getMonth() + 1)}/${pad(now.getDate())}/${randomBytes(16).toString('hex')}`;
}

export function isFileKey(key: unknown): key is string {
  return typeof key === 'string' && FILE_KEY.test(key);
}
