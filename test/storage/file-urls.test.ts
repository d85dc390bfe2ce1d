import { describe, expect, it } from 'vitest';
import {
  DOWNLOAD_PATH,
  fileKeyOfUrl,
  fileUrl,
  isFileKey,
  newFileKey,
  PUBLIC_FILE_PATH,
} from '../../src/platform/storage/index.js';

/** The file URLs uploads answer, and which URLs the face service's photo resolver takes as ours. */
const KEY = `2026/11/27/${'ab'.repeat(16)}`;
const ENCODED = encodeURIComponent(KEY);

describe('file URLs', () => {
  it('answer the token-free file route under the base (FILE_BASE_URL or the request origin), the key as query', () => {
    expect(PUBLIC_FILE_PATH).toBe('/open-api/oss/file');
    expect(fileUrl('http://localhost:8102', KEY)).toBe(`http://localhost:8102/open-api/oss/file?fileKey=${ENCODED}`);
    expect(fileUrl('https://api.example.com/tc/', KEY)).toBe(
      `https://api.example.com/tc/open-api/oss/file?fileKey=${ENCODED}`,
    );
  });

  it('keys are 128 random bits under the date: never the same twice, always well formed', () => {
    const keys = new Set(Array.from({ length: 1000 }, () => newFileKey(new Date(2026, 10, 27))));
    expect(keys.size).toBe(1000);
    for (const key of keys) expect(key).toMatch(/^2026\/11\/27\/[0-9a-f]{32}$/);
    expect([...keys].every(isFileKey)).toBe(true);
  });

  it('the resolver takes the new URL and the old download URL, each with a well-formed key', () => {
    for (const path of [PUBLIC_FILE_PATH, DOWNLOAD_PATH]) {
      expect(fileKeyOfUrl(new URL(`http://any.host:81${path}?fileKey=${ENCODED}`), null), path).toBe(KEY);
      expect(
        fileKeyOfUrl(new URL(`https://api.example.com/tc${path}?fileKey=${ENCODED}`), 'https://api.example.com/tc'),
        path,
      ).toBe(KEY);
      // With FILE_BASE_URL set, only URLs under it are ours.
      expect(
        fileKeyOfUrl(new URL(`https://evil.example.com/tc${path}?fileKey=${ENCODED}`), 'https://api.example.com/tc'),
        path,
      ).toBeNull();
      expect(
        fileKeyOfUrl(new URL(`https://api.example.com${path}?fileKey=${ENCODED}`), 'https://api.example.com/tc'),
        path,
      ).toBeNull();
      for (const bad of [
        '..%2F..%2Fetc%2Fpasswd',
        '2026%2F11%2F27%2F..%2F..%2Fx',
        `${ENCODED}%00`,
        ENCODED.toUpperCase(),
        '',
      ]) {
        expect(fileKeyOfUrl(new URL(`http://h${path}?fileKey=${bad}`), null), `${path} ${bad}`).toBeNull();
      }
    }
    expect(fileKeyOfUrl(new URL(`http://h/open-api/oss/upload?fileKey=${ENCODED}`), null)).toBeNull();
    expect(fileKeyOfUrl(new URL(`http://h/photos/face.jpg?fileKey=${ENCODED}`), null)).toBeNull();
  });
});
