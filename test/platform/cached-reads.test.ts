import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { chooseEncoding, matchesEtag } from '../../src/platform/http/responses.js';

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await createTestApp();
  token = (await t.loginStaff()).accessToken;
});
afterAll(() => t?.close());

const tree = (headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: '/manage-api/region/queryRegionTree',
    headers: { authorization: `Bearer ${token}`, ...headers },
    payload: {},
  });

describe('large cached reads (the region and area trees)', () => {
  it('answer compressed when the client accepts it, the same bytes once decoded', async () => {
    const plain = await tree();
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.json().errcode).toBe(0);
    const br = await tree({ 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('accept-encoding');
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length / 5);
    expect(brotliDecompressSync(br.rawPayload).equals(plain.rawPayload)).toBe(true);
    const gz = await tree({ 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).equals(plain.rawPayload)).toBe(true);
    expect((await tree({ 'accept-encoding': 'br;q=0, identity' })).headers['content-encoding']).toBeUndefined();
  });

  it('carry an ETag; If-None-Match with it answers 304 without a body until a write changes the tree', async () => {
    const first = await tree();
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[\w-]{27}"$/);
    expect((await tree()).headers.etag).toBe(etag);
    const notModified = await tree({ 'if-none-match': etag });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.rawPayload.length).toBe(0);
    expect((await tree({ 'if-none-match': '"something else"' })).statusCode).toBe(200);

    const added = await t.post('/manage-api/region/addRegion', { name: 'changes the tree', levelType: 1 }, token);
    expect(added.body.errcode).toBe(0);
    const after = await tree({ 'if-none-match': etag });
    expect(after.statusCode).toBe(200);
    expect(after.headers.etag).not.toBe(etag);
    expect(after.body).toContain('changes the tree');
  });

  it('area tree too', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/manage-api/system/area/tree',
      headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'br' },
      payload: {},
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(res.rawPayload).toString()).errcode).toBe(0);
  });
});

describe('negotiation', () => {
  it('prefers brotli, then gzip, honours q=0 and *', () => {
    expect(chooseEncoding(undefined)).toBeNull();
    expect(chooseEncoding('identity')).toBeNull();
    expect(chooseEncoding('gzip, br')).toBe('br');
    expect(chooseEncoding('br;q=0, gzip;q=0.5')).toBe('gzip');
    expect(chooseEncoding('*')).toBe('gzip');
    expect(chooseEncoding('gzip;q=0')).toBeNull();
  });
  it('matches ETags weakly and in lists', () => {
    expect(matchesEtag('"a", W/"b"', '"b"')).toBe(true);
    expect(matchesEtag('*', '"b"')).toBe(true);
    expect(matchesEtag('"c"', '"b"')).toBe(false);
    expect(matchesEtag(undefined, '"b"')).toBe(false);
  });
});
