import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PNG } from 'pngjs';
import bcrypt from 'bcryptjs';
import { createTestApp, openTestDatabase, type TestApp, type TestDb } from '../helpers/test-app.js';
import { TEST_ADMIN } from '../helpers/test-env.js';
import { awayFromMinuteEdge, createStaff, requestCaptcha } from '../helpers/platform-fixtures.js';
import { hashToken } from '../../src/platform/auth/token-codec.js';
import { parseDateTime } from '../../src/platform/time.js';

const LOGIN = '/manage-api/auth/login';
const IMG = '/manage-api/auth/getRandomCodeImg';
const TREE = '/manage-api/region/queryRegionTree';

let testDb: TestDb;
let t: TestApp;

beforeAll(async () => {
  testDb = await openTestDatabase();
  t = await createTestApp({}, { db: testDb });
});
afterAll(async () => {
  await t?.close();
  await testDb?.close();
});

/** A login through a fresh captcha (uuid form): `code` overrides the right one. */
async function login(
  app: TestApp,
  username: string,
  password: string,
  opts: { code?: string; remoteAddress?: string } = {},
) {
  const { key, code } = await requestCaptcha(app, opts);
  const res = await app.app.inject({
    method: 'POST',
    url: LOGIN,
    payload: { username, password, code: opts.code ?? code, uuid: key },
    ...(opts.remoteAddress ? { remoteAddress: opts.remoteAddress } : {}),
  });
  return res.json() as { errcode: number; errmsg: string; data?: any };
}

describe('getRandomCodeImg', () => {
  it('answers a 120×40 PNG that is not cached, with an HttpOnly SESSION cookie and X-Captcha-Key', async () => {
    const res = await t.app.inject({ method: 'GET', url: IMG });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(String(res.headers['cache-control'])).toMatch(/no-cache/);
    expect(String(res.headers['cache-control'])).toMatch(/no-store/);
    expect(res.headers.pragma).toBe('no-cache');
    const png = PNG.sync.read(res.rawPayload);
    expect([png.width, png.height]).toEqual([120, 40]);

    const key = String(res.headers['x-captcha-key']);
    expect(key).toMatch(/^[A-Za-z0-9_-]{16,64}$/);
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toMatch(new RegExp(`^SESSION=${key};`));
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(await t.store.get(`captcha:${key}`)).toMatch(/^\d{4}$/);
  });

  it('reuses the session key the cookie carries, with a new code', async () => {
    const first = await requestCaptcha(t);
    const second = await requestCaptcha(t, { cookie: `SESSION=${first.key}` });
    expect(second.key).toBe(first.key);
    expect(second.code).toMatch(/^\d{4}$/);
  });
});

describe('staff login', () => {
  it('answers the LoginResponse and writes a login_log row', async () => {
    const before = Date.now();
    const res = await login(t, TEST_ADMIN.username, TEST_ADMIN.password);
    const after = Date.now();
    expect(res.errcode).toBe(0);
    expect(res.errmsg).toBe('success');
    const data = res.data;
    expect(Object.keys(data).sort()).toEqual([
      'accessToken',
      'expiresTime',
      'mobile',
      'openId',
      'refreshToken',
      'userId',
    ]);
    expect(data.userId).toBeTypeOf('number');
    expect(data.accessToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(data.refreshToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(data.refreshToken).not.toBe(data.accessToken);
    expect(data.expiresTime).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const expires = parseDateTime(data.expiresTime)!.getTime();
    // 30 minutes from the moment of issue, which lies between before and after (whole seconds on the wire)
    expect(expires).toBeGreaterThanOrEqual(before + 1800 * 1000 - 1000);
    expect(expires).toBeLessThanOrEqual(after + 1800 * 1000);

    const rows = await t.db
      .selectFrom('login_log')
      .selectAll()
      .where('account_id', '=', data.userId)
      .where('success', '=', true)
      .execute();
    expect(rows.length).toBeGreaterThanOrEqual(1);
    expect(rows.at(-1)).toMatchObject({
      account_kind: 'admin',
      username: TEST_ADMIN.username,
      errcode: 0,
      ip: '127.0.0.1',
    });

    const tree = await t.post(TREE, {}, data.accessToken);
    expect(tree.body.errcode).toBe(0);
  });

  it('refuses a login that never requested a captcha (VERIFY_CODE_IS_NULL)', async () => {
    const res = await t.post(LOGIN, { username: TEST_ADMIN.username, password: TEST_ADMIN.password, code: '1234' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ errcode: 1_002_000_002, errmsg: 'please request a captcha first' });
    const withUnknownKey = await t.post(LOGIN, {
      username: TEST_ADMIN.username,
      password: TEST_ADMIN.password,
      code: '1234',
      uuid: 'k'.repeat(32),
    });
    expect(withUnknownKey.body.errcode).toBe(1_002_000_002);
  });

  it('compares the code ignoring case', async () => {
    const { key } = await requestCaptcha(t);
    await t.store.set(`captcha:${key}`, 'AbC9', 300);
    const res = await t.post(LOGIN, {
      username: TEST_ADMIN.username,
      password: TEST_ADMIN.password,
      code: 'aBc9',
      uuid: key,
    });
    expect(res.body.errcode).toBe(0);
  });

  it('clears the code on a mismatch: the right code then fails too', async () => {
    const { key, code } = await requestCaptcha(t);
    const wrong = code === '0000' ? '1111' : '0000';
    const first = await t.post(LOGIN, {
      username: TEST_ADMIN.username,
      password: TEST_ADMIN.password,
      code: wrong,
      uuid: key,
    });
    expect(first.body.errcode).toBe(1_002_000_003);
    const again = await t.post(LOGIN, {
      username: TEST_ADMIN.username,
      password: TEST_ADMIN.password,
      code,
      uuid: key,
    });
    expect(again.body.errcode).not.toBe(0);
    expect(again.body.errcode).toBe(1_002_000_002);
  });

  it('uses a code once', async () => {
    const { key, code } = await requestCaptcha(t);
    const first = await t.post(LOGIN, {
      username: TEST_ADMIN.username,
      password: TEST_ADMIN.password,
      code,
      uuid: key,
    });
    expect(first.body.errcode).toBe(0);
    const second = await t.post(LOGIN, {
      username: TEST_ADMIN.username,
      password: TEST_ADMIN.password,
      code,
      uuid: key,
    });
    expect(second.body.errcode).toBe(1_002_000_002);
  });

  it('accepts a login through the SESSION cookie (no uuid)', async () => {
    const { res, code } = await requestCaptcha(t);
    const cookie = String(res.headers['set-cookie']).split(';')[0];
    const out = await t.call('POST', LOGIN, {
      body: { username: TEST_ADMIN.username, password: TEST_ADMIN.password, code },
      headers: { cookie },
    });
    expect(out.body.errcode).toBe(0);
  });

  it('accepts a login through the uuid (no cookie), and the uuid wins over a stale cookie', async () => {
    const { key, code } = await requestCaptcha(t);
    const out = await t.call('POST', LOGIN, {
      body: { username: TEST_ADMIN.username, password: TEST_ADMIN.password, code, uuid: key },
      headers: { cookie: `SESSION=${'s'.repeat(32)}` },
    });
    expect(out.body.errcode).toBe(0);
  });

  it('answers an unknown user exactly as a wrong password', async () => {
    const unknown = await login(t, 'nobody_' + Date.now(), 'Whatever@123');
    const wrong = await login(t, TEST_ADMIN.username, 'Wrong@Password1');
    expect(unknown).toEqual({ errcode: 1_002_000_000, errmsg: 'wrong username or password' });
    expect(wrong).toEqual(unknown);
  });

  it('refuses a disabled account', async () => {
    const u = await createStaff(t.db, { status: 0 });
    const res = await login(t, u.username, u.password);
    expect(res.errcode).toBe(1_002_000_001);
  });

  it('locks the account for the failing address on the fifth failed login, refusing even the right password there', async () => {
    const u = await createStaff(t.db);
    const from = { remoteAddress: '10.20.30.40' };
    for (let i = 1; i <= 4; i++)
      expect((await login(t, u.username, 'Wrong@Pass' + i, from)).errcode).toBe(1_002_000_000);
    const fifth = await login(t, u.username, 'Wrong@Pass5', from);
    expect(fifth.errcode).toBe(423);
    expect(fifth.errmsg).toMatch(/locked.*10 minutes/);
    expect((await login(t, u.username, u.password, from)).errcode).toBe(423);
    // the owner, elsewhere, is not locked out by it
    expect((await login(t, u.username, u.password, { remoteAddress: '10.20.30.41' })).errcode).toBe(0);
  });

  it('accepts a bcrypt ($2a$) hash from the Java system and re-hashes it with argon2id', async () => {
    const password = 'Legacy@Pass2019';
    const legacy = bcrypt.hashSync(password, 4).replace(/^\$2b\$/, '$2a$');
    expect(legacy.startsWith('$2a$')).toBe(true);
    const u = await createStaff(t.db, { passwordHash: legacy, password });
    const bcryptVerified = async () =>
      Number(
        /^password_verifications_total\{cost="bcrypt 4"\} (\d+)$/m.exec(
          (await t.app.inject({ method: 'GET', url: '/metrics' })).body,
        )?.[1] ?? 0,
      );
    const before = await bcryptVerified();
    expect((await login(t, u.username, password)).errcode).toBe(0);
    expect(await bcryptVerified(), 'the bcrypt verification counted by its cost on /metrics').toBe(before + 1);
    const row = await t.db
      .selectFrom('admin_user')
      .select('password_hash')
      .where('id', '=', u.id)
      .executeTakeFirstOrThrow();
    expect(row.password_hash.startsWith('$argon2id$')).toBe(true);
    expect((await login(t, u.username, password)).errcode).toBe(0);
    expect((await login(t, u.username, 'not-it')).errcode).toBe(1_002_000_000);
  });
});

describe('with CAPTCHA_BYPASS_CODE', () => {
  let bypass: TestApp;
  beforeAll(async () => {
    bypass = await createTestApp({ CAPTCHA_BYPASS_CODE: '0000' }, { db: testDb });
  });
  afterAll(() => bypass?.close());

  it('still refuses a login that never requested a captcha', async () => {
    const res = await bypass.post(LOGIN, {
      username: TEST_ADMIN.username,
      password: TEST_ADMIN.password,
      code: '0000',
    });
    expect(res.body).toEqual({ errcode: 1_002_000_002, errmsg: 'please request a captcha first' });
  });

  it('accepts the bypass code in place of the drawn one once a captcha was requested', async () => {
    const { key, code } = await requestCaptcha(bypass);
    await bypass.store.set(`captcha:${key}`, code === '1234' ? '5678' : '1234', 300);
    const res = await bypass.post(LOGIN, {
      username: TEST_ADMIN.username,
      password: TEST_ADMIN.password,
      code: '0000',
      uuid: key,
    });
    expect(res.body.errcode).toBe(0);
  });
});

describe('sessions', () => {
  it('logout ends the token at once and writes an operate_log row', async () => {
    const { accessToken, userId } = await t.loginStaff();
    expect((await t.post(TREE, {}, accessToken)).body.errcode).toBe(0);
    const mark = await t.db
      .selectFrom('operate_log')
      .select((eb) => eb.fn.max('id').as('m'))
      .executeTakeFirst();
    const out = await t.call('POST', '/manage-api/auth/logout', { token: accessToken });
    expect(out.body).toEqual({ errcode: 0, errmsg: 'success' });
    const after = await t.post(TREE, {}, accessToken);
    expect(after.body.errcode).toBe(401);
    const rows = await t.db
      .selectFrom('operate_log')
      .selectAll()
      .where('id', '>', Number(mark?.m ?? 0))
      .where('action', '=', '退出登录')
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      account_kind: 'admin',
      account_id: userId,
      success: true,
      errcode: 0,
      path: '/manage-api/auth/logout',
    });
    // the token row is gone too, so no other instance can rebuild the session
    expect(
      await t.db
        .selectFrom('oauth2_token')
        .select('id')
        .where('access_hash', '=', hashToken(accessToken))
        .executeTakeFirst(),
    ).toBeUndefined();
  });

  it('refresh rotates both tokens; the old refresh token then fails, the new access token works', async () => {
    const first = await t.loginStaff();
    const res = await t.post('/manage-api/auth/refreshToken', { refreshToken: first.refreshToken });
    expect(res.body.errcode).toBe(0);
    const next = res.body.data;
    expect(next.userId).toBe(first.userId);
    expect(next.accessToken).not.toBe(first.accessToken);
    expect(next.refreshToken).not.toBe(first.refreshToken);
    expect(next.expiresTime).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect((await t.post(TREE, {}, next.accessToken)).body.errcode).toBe(0);
    expect((await t.post(TREE, {}, first.accessToken)).body.errcode).toBe(401);
    expect((await t.post('/manage-api/auth/refreshToken', { refreshToken: first.refreshToken })).body.errcode).toBe(
      401,
    );
    expect((await t.post('/manage-api/auth/refreshToken', { refreshToken: next.refreshToken })).body.errcode).toBe(0);
  });

  it('refuses a refresh on another channel, and that attempt does not spend the token', async () => {
    const { refreshToken } = await t.loginStaff();
    expect((await t.post('/app-api/auth/refreshToken', { refreshToken })).body.errcode).toBe(401);
    expect((await t.post('/mp-api/auth/refreshToken', { refreshToken })).body.errcode).toBe(401);
    expect((await t.post('/manage-api/auth/refreshToken', { refreshToken })).body.errcode).toBe(0);
  });

  it('refuses a refresh for an account disabled since the login', async () => {
    const u = await createStaff(t.db);
    const { refreshToken } = await t.loginStaff(u.username, u.password);
    await t.db.updateTable('admin_user').set({ status: 0 }).where('id', '=', u.id).execute();
    expect((await t.post('/manage-api/auth/refreshToken', { refreshToken })).body.errcode).toBe(401);
  });

  it('refuses a made-up or malformed refresh token', async () => {
    expect((await t.post('/manage-api/auth/refreshToken', { refreshToken: 'x'.repeat(43) })).body.errcode).toBe(401);
    expect((await t.post('/manage-api/auth/refreshToken', { refreshToken: 'short' })).body.errcode).toBe(400);
    expect((await t.post('/manage-api/auth/refreshToken', {})).body).toEqual({
      errcode: 400,
      errmsg: 'refreshToken is required',
    });
  });
});

describe('access token expiry (ACCESS_TOKEN_TTL_S=10)', () => {
  let short: TestApp;
  beforeAll(async () => {
    // No session kept in memory: what is tested is the store's and the database's part, which the
    // test changes behind the service's back.
    short = await createTestApp({ ACCESS_TOKEN_TTL_S: '10', SESSION_LOCAL_TTL_S: '0' }, { db: testDb });
  });
  afterAll(() => short?.close());

  it('expires the session held in the store', async () => {
    const { accessToken } = await short.loginStaff();
    expect((await short.post(TREE, {}, accessToken)).body.errcode).toBe(0);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 11_000);
      expect((await short.post(TREE, {}, accessToken)).body.errcode).toBe(401);
    } finally {
      vi.useRealTimers();
    }
  });

  it('rebuilds a session the store lost from the database, and refuses it once the row expired', async () => {
    const { accessToken } = await short.loginStaff();
    const hash = hashToken(accessToken);
    await short.store.del(`sess:${hash}`);
    expect((await short.post(TREE, {}, accessToken)).body.errcode).toBe(0);
    await short.db
      .updateTable('oauth2_token')
      .set({ access_expires_at: new Date(Date.now() - 1000) })
      .where('access_hash', '=', hash)
      .execute();
    await short.store.del(`sess:${hash}`);
    expect((await short.post(TREE, {}, accessToken)).body.errcode).toBe(401);
  });
});

describe('rate limits', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await createTestApp({ LOGIN_RATE_PER_MIN: '3', CAPTCHA_RATE_PER_MIN: '2' }, { db: testDb });
  });
  afterAll(() => limited?.close());

  it('answers 429 to the fourth login attempt from one IP in a minute', async () => {
    await awayFromMinuteEdge();
    const attempt = (username: string, remoteAddress: string) =>
      limited.app
        .inject({ method: 'POST', url: LOGIN, remoteAddress, payload: { username, password: 'x', code: '1234' } })
        .then((r) => r.json());
    for (let i = 1; i <= 3; i++) expect((await attempt(`user${i}`, '10.9.8.7')).errcode).toBe(1_002_000_002);
    const fourth = await attempt('user4', '10.9.8.7');
    expect(fourth.errcode).toBe(429);
    expect(fourth.errmsg).toMatch(/too many/);
    // another address is counted apart
    expect((await attempt('user5', '10.9.8.8')).errcode).toBe(1_002_000_002);
  });

  it('answers the third captcha image in a minute with the 429 envelope, not an image', async () => {
    await awayFromMinuteEdge();
    const get = () => limited.app.inject({ method: 'GET', url: IMG, remoteAddress: '10.7.7.7' });
    expect((await get()).headers['content-type']).toBe('image/png');
    expect((await get()).headers['content-type']).toBe('image/png');
    const third = await get();
    expect(third.headers['content-type']).toMatch(/^application\/json/);
    expect(third.headers['x-captcha-key']).toBeUndefined();
    expect(third.json()).toMatchObject({ errcode: 429 });
  });
});
