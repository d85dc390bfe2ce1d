import { createHash, createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { issueSession } from '../helpers/platform-fixtures.js';
import { upsertOpenApp } from '../../src/platform/auth/open-app.repository.js';
import { sign, signingString } from '../../src/platform/auth/open-signature.js';

const PATH = '/open-api/region/queryRegionList';
const APP_KEY = 'test-open-app';
const APP_SECRET = 'test-open-secret-0123456789';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ OPEN_APP_KEY: APP_KEY, OPEN_APP_SECRET: APP_SECRET });
  // main.ts upserts the configured app at start (seedReferenceData); buildApp does not.
  await upsertOpenApp(t.db, { appKey: APP_KEY, appSecret: APP_SECRET, name: 'test open app' });
});
afterAll(() => t?.close());

const nonce = () => randomBytes(12).toString('hex');

interface Signed {
  body?: string;
  path?: string;
  url?: string;
  timestamp?: string;
  nonce?: string;
  appKey?: string;
  secret?: string;
  omit?: string;
  sendBody?: string;
}

/** Signs with the module's own helpers; fields override a part of the signed call. */
function signedHeaders(o: Signed = {}) {
  const body = o.body ?? '{"idList":[320000]}';
  const ts = o.timestamp ?? String(Date.now());
  const n = o.nonce ?? nonce();
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-app-key': o.appKey ?? APP_KEY,
    'x-timestamp': ts,
    'x-nonce': n,
    'x-sign': sign(o.secret ?? APP_SECRET, signingString('POST', o.path ?? PATH, ts, n, body)),
  };
  if (o.omit) delete headers[o.omit];
  return { headers, body };
}

async function callSigned(o: Signed = {}) {
  const { headers, body } = signedHeaders(o);
  const res = await t.app.inject({ method: 'POST', url: o.url ?? PATH, headers, payload: o.sendBody ?? body });
  return res.json() as { errcode: number; errmsg: string; data?: any };
}

describe('signed open-channel calls (docs/architecture.md §5.5)', () => {
  it('accept a correctly signed call', async () => {
    const res = await callSigned();
    expect(res.errcode).toBe(0);
    expect(res.data).toHaveLength(1);
    expect(res.data[0]).toMatchObject({ id: 320000, name: '江苏省' });
  });

  it('pin the format: hex HMAC-SHA256 over METHOD\\nPATH\\nTIMESTAMP\\nNONCE\\nsha256hex(body)', async () => {
    const body = JSON.stringify({ keywords: 'nanjing', levelType: 2 });
    const ts = String(Date.now());
    const n = 'nonce-by-hand-' + randomBytes(4).toString('hex');
    const bodyHash = createHash('sha256').update(body, 'utf8').digest('hex');
    const text = `POST\n${PATH}\n${ts}\n${n}\n${bodyHash}`;
    const signature = createHmac('sha256', APP_SECRET).update(text, 'utf8').digest('hex');
    const res = await t.app.inject({
      method: 'POST',
      url: PATH,
      payload: body,
      headers: {
        'content-type': 'application/json',
        'X-App-Key': APP_KEY,
        'X-Timestamp': ts,
        'X-Nonce': n,
        'X-Sign': signature.toUpperCase(),
      },
    });
    expect(res.json().errcode).toBe(0);
    expect(res.json().data.map((r: { name: string }) => r.name)).toEqual(['南京市']);
  });

  it('sign the path without the query string, and an empty body as the empty string', async () => {
    expect((await callSigned({ url: `${PATH}?trace=1` })).errcode).toBe(0);
    const ts = String(Date.now());
    const n = nonce();
    const res = await t.app.inject({
      method: 'POST',
      url: PATH,
      headers: {
        'x-app-key': APP_KEY,
        'x-timestamp': ts,
        'x-nonce': n,
        'x-sign': sign(APP_SECRET, signingString('POST', PATH, ts, n, '')),
      },
    });
    expect(res.json().errcode).toBe(0);
    expect(res.json().data.length).toBeGreaterThan(3000);
  });

  it.each(['x-app-key', 'x-timestamp', 'x-nonce', 'x-sign'])('refuse a call without %s', async (omit) => {
    expect((await callSigned({ omit })).errcode).toBe(401);
  });

  it('refuse a stale or future timestamp (more than 5 minutes off)', async () => {
    expect((await callSigned({ timestamp: String(Date.now() - 5 * 60_000 - 5_000) })).errcode).toBe(401);
    expect((await callSigned({ timestamp: String(Date.now() + 5 * 60_000 + 5_000) })).errcode).toBe(401);
    expect((await callSigned({ timestamp: 'yesterday' })).errcode).toBe(401);
    expect((await callSigned({ timestamp: String(Date.now() - 4 * 60_000) })).errcode).toBe(0);
  });

  it('refuse a reused nonce', async () => {
    const n = nonce();
    expect((await callSigned({ nonce: n })).errcode).toBe(0);
    const replay = await callSigned({ nonce: n });
    expect(replay.errcode).toBe(401);
    expect(replay.errmsg).toMatch(/nonce/i);
  });

  it('do not let a badly signed call spend a nonce', async () => {
    const n = nonce();
    expect((await callSigned({ nonce: n, secret: 'wrong' })).errcode).toBe(401);
    expect((await callSigned({ nonce: n })).errcode).toBe(0);
  });

  it('refuse a wrong secret, a tampered body, another path and an unknown app key', async () => {
    expect((await callSigned({ secret: 'not-the-secret' })).errcode).toBe(401);
    expect((await callSigned({ sendBody: '{"idList":[110000]}' })).errcode).toBe(401);
    expect((await callSigned({ path: '/open-api/region/queryRegionTree' })).errcode).toBe(401);
    expect((await callSigned({ appKey: 'no-such-app' })).errcode).toBe(401);
  });

  it('refuse a disabled app', async () => {
    await upsertOpenApp(t.db, { appKey: 'to-disable', appSecret: 'secret-of-disabled', name: 'disabled app' });
    expect((await callSigned({ appKey: 'to-disable', secret: 'secret-of-disabled' })).errcode).toBe(0);
    await t.db.updateTable('open_app').set({ status: 0 }).where('app_key', '=', 'to-disable').execute();
    expect((await callSigned({ appKey: 'to-disable', secret: 'secret-of-disabled' })).errcode).toBe(401);
  });
});

describe('tokens on the open channel', () => {
  it('accept a staff token', async () => {
    const { accessToken } = await t.loginStaff();
    const res = await t.post(PATH, { idList: [320100] }, accessToken);
    expect(res.body.errcode).toBe(0);
    expect(res.body.data[0].name).toBe('南京市');
  });

  it('refuse no token, a verifier token and a member token', async () => {
    expect((await t.post(PATH, {})).body.errcode).toBe(401);
    const checker = await issueSession(t, { kind: 'checker' }, 'app');
    expect((await t.post(PATH, {}, checker.accessToken)).body.errcode).toBe(401);
    const member = await issueSession(t, { kind: 'member' }, 'mp');
    expect((await t.post(PATH, {}, member.accessToken)).body.errcode).toBe(401);
  });
});
