import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { localOpenId } from '../../src/platform/wechat/local-provider.js';
import { createWechatMiniProgramLogin, MiniProgramLoginError } from '../../src/platform/wechat/wechat-provider.js';
import { createTestApp, openTestDatabase, type TestApp, type TestDb } from '../helpers/test-app.js';
import { createChecker, createMember, uniq } from '../helpers/factories.js';

const DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const MP = '/mp-api/auth/oauth2';
const APP = '/app-api/auth/oauth2';

describe('mini-program login (POST /app-api|/mp-api/auth/oauth2, local provider)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());

  const member = (openId: string) =>
    t.db.selectFrom('member').selectAll().where('open_id', '=', openId).executeTakeFirst();

  it('registers the member on the first login and answers the same member on the next, on both prefixes', async () => {
    const code = uniq('code-');
    const first = await t.post(MP, { code, nickname: 'Xiao Ming', avatar: 'https://img.example.com/a.png' });
    expect(first.body.errcode).toBe(0);
    expect(first.body.data).toEqual({
      userId: expect.any(Number),
      openId: localOpenId(code),
      mobile: null,
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
      expiresTime: expect.stringMatching(DATE_TIME),
    });
    const created = await member(localOpenId(code));
    expect(created).toMatchObject({
      id: first.body.data.userId,
      status: 1,
      register_ip: '127.0.0.1',
      register_terminal: 2,
      login_ip: '127.0.0.1',
      nickname: 'Xiao Ming',
      avatar: 'https://img.example.com/a.png',
      is_deleted: false,
    });

    const second = await t.post(APP, { code });
    expect(second.body.errcode).toBe(0);
    expect(second.body.data).toMatchObject({ userId: first.body.data.userId, openId: localOpenId(code) });
    expect(second.body.data.accessToken).not.toBe(first.body.data.accessToken);
    const after = await member(localOpenId(code));
    // A later login keeps the registration and what the user shared before.
    expect(after).toMatchObject({
      register_terminal: 2,
      nickname: 'Xiao Ming',
      avatar: 'https://img.example.com/a.png',
    });
    expect(after!.login_date!.getTime()).toBeGreaterThanOrEqual(created!.login_date!.getTime());

    const ops = await t.db
      .selectFrom('operate_log')
      .select(['module', 'action', 'path', 'account_kind', 'success'])
      .where('account_kind', '=', 'member')
      .where('account_id', '=', first.body.data.userId)
      .orderBy('id')
      .execute();
    expect(ops).toEqual([
      { module: '会员', action: '小程序登录', path: MP, account_kind: 'member', success: true },
      { module: '会员', action: '小程序登录', path: APP, account_kind: 'member', success: true },
    ]);
    const logins = await t.db
      .selectFrom('login_log')
      .select('success')
      .where('account_kind', '=', 'member')
      .where('account_id', '=', first.body.data.userId)
      .execute();
    expect(logins).toHaveLength(2);
  });

  it('records a member first seen through /app-api as registered from the app (terminal 1)', async () => {
    const code = uniq('code-');
    expect((await t.post(APP, { code })).body.errcode).toBe(0);
    expect(await member(localOpenId(code))).toMatchObject({ register_terminal: 1, nickname: null });
  });

  it('binds the member token to /mp-api, even when the login came through /app-api', async () => {
    const { accessToken, refreshToken } = (await t.post(APP, { code: uniq('code-') })).body.data;
    expect((await t.post('/app-api/auth/checkerLogout', {}, accessToken)).body.errcode).toBe(401);
    expect((await t.post('/manage-api/region/queryRegionTree', {}, accessToken)).body.errcode).toBe(401);

    const refreshed = await t.post('/mp-api/auth/refreshToken', { refreshToken });
    expect(refreshed.body.errcode).toBe(0);
    expect((await t.post('/mp-api/auth/refreshToken', { refreshToken })).body.errcode).toBe(401);

    const token = refreshed.body.data.accessToken;
    expect((await t.post('/mp-api/auth/logout', {}, token)).body).toEqual({ errcode: 0, errmsg: 'success' });
    expect((await t.post('/mp-api/auth/logout', {}, token)).body.errcode).toBe(401);
  });

  it('refuses a verifier token on the member logout', async () => {
    const checker = await createChecker(t.db);
    const { accessToken } = (
      await t.post('/app-api/auth/checkerLogin', { mobile: checker.mobile, password: checker.password })
    ).body.data;
    expect((await t.post('/mp-api/auth/logout', {}, accessToken)).body.errcode).toBe(401);
  });

  it('refuses a disabled or deleted member with errcode 1002000001 and changes nothing', async () => {
    for (const cols of [{ status: 0 }, { is_deleted: true }]) {
      const code = uniq('code-');
      const id = await createMember(t.db, { open_id: localOpenId(code), login_ip: '10.0.0.1', ...cols });
      const res = await t.post(MP, { code });
      expect(res.body).toEqual({ errcode: 1002000001, errmsg: 'this account is disabled' });
      expect(await member(localOpenId(code))).toMatchObject({ id, login_ip: '10.0.0.1' });
      const failed = await t.db
        .selectFrom('login_log')
        .select(['success', 'errcode'])
        .where('account_kind', '=', 'member')
        .where('account_id', '=', id)
        .execute();
      expect(failed).toEqual([{ success: false, errcode: 1002000001 }]);
    }
  });

  it('creates exactly one member when five first logins of one open id race', async () => {
    const code = uniq('code-');
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => t.post(i % 2 ? APP : MP, { code })));
    expect(answers.map((a) => a.body.errcode)).toEqual([0, 0, 0, 0, 0]);
    expect(new Set(answers.map((a) => a.body.data.userId)).size).toBe(1);
    const rows = await t.db.selectFrom('member').select('id').where('open_id', '=', localOpenId(code)).execute();
    expect(rows).toEqual([{ id: answers[0].body.data.userId }]);
  });

  it('rejects a missing or bad field with errcode 400 naming it', async () => {
    const missing = await t.post(MP, {});
    expect(missing.body.errcode).toBe(400);
    expect(missing.body.errmsg).toContain('code');
    const long = await t.post(MP, { code: 'x'.repeat(129) });
    expect(long.body.errcode).toBe(400);
    expect(long.body.errmsg).toContain('code');
    const avatar = await t.post(MP, { code: 'abc', avatar: 'javascript:alert(1)' });
    expect(avatar.body.errcode).toBe(400);
    expect(avatar.body.errmsg).toContain('avatar');
  });
});

/** A stand-in for api.weixin.qq.com speaking jscode2session. */
function fakeWechat() {
  const seen: URLSearchParams[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/sns/jscode2session') return void res.writeHead(404).end();
    seen.push(url.searchParams);
    const code = url.searchParams.get('js_code') ?? '';
    const send = (body: unknown) => res.writeHead(200, { 'content-type': 'text/plain' }).end(JSON.stringify(body));
    if (url.searchParams.get('appid') !== 'wx-test-app' || url.searchParams.get('secret') !== 'test-secret') {
      return send({ errcode: 40125, errmsg: 'invalid appsecret' });
    }
    if (code.startsWith('good-'))
      return send({ openid: `wx_${code}`, session_key: 'c2Vzc2lvbg==', unionid: `union_${code}` });
    if (code === 'hang') return; // never answers
    if (code === 'garbage') return void res.writeHead(200).end('<html>gateway</html>');
    if (code === 'broken') return void res.writeHead(502).end();
    return send({ errcode: 40029, errmsg: 'invalid code' });
  });
  return {
    seen,
    server,
    async start() {
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('mini-program login through WeChat jscode2session', () => {
  const wechat = fakeWechat();
  let base: string;
  let tdb: TestDb;
  let t: TestApp;
  let down: TestApp;
  const env = (baseUrl: string) => ({
    MP_LOGIN_PROVIDER: 'wechat',
    WECHAT_API_BASE: baseUrl,
    WECHAT_APP_ID: 'wx-test-app',
    WECHAT_APP_SECRET: 'test-secret',
  });

  beforeAll(async () => {
    base = await wechat.start();
    // A port that was just free and is closed again: connections to it are refused.
    const gone = fakeWechat();
    const goneBase = await gone.start();
    await gone.stop();
    tdb = await openTestDatabase();
    t = await createTestApp(env(base), { db: tdb });
    down = await createTestApp(env(goneBase), { db: tdb });
  });
  afterAll(async () => {
    await t?.close();
    await down?.close();
    await tdb?.close();
    await wechat.stop();
  });

  it('exchanges the code for the open id and keeps the union id', async () => {
    const res = await t.post(MP, { code: 'good-1' });
    expect(res.body.errcode).toBe(0);
    expect(res.body.data.openId).toBe('wx_good-1');
    const row = await t.db
      .selectFrom('member')
      .select(['id', 'third_id'])
      .where('open_id', '=', 'wx_good-1')
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ id: res.body.data.userId, third_id: 'union_good-1' });
    const asked = wechat.seen.at(-1)!;
    expect(Object.fromEntries(asked)).toEqual({
      appid: 'wx-test-app',
      secret: 'test-secret',
      js_code: 'good-1',
      grant_type: 'authorization_code',
    });
  });

  it("answers WeChat's refusal readably", async () => {
    const res = await t.post(MP, { code: 'expired-code' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ errcode: 1003000001, errmsg: 'mini-program login failed: invalid code' });
    expect(await t.db.selectFrom('member').select('id').where('open_id', 'like', '%expired%').execute()).toEqual([]);
  });

  it.each(['garbage', 'broken'])('answers 503 without internals when WeChat answers nonsense (%s)', async (code) => {
    const res = await t.post(MP, { code });
    expect(res.body).toEqual({
      errcode: 503,
      errmsg: 'the WeChat login service is unavailable, please try again later',
    });
  });

  it('answers 503 without internals when WeChat cannot be reached', async () => {
    const res = await down.post(MP, { code: 'good-2' });
    expect(res.body).toEqual({
      errcode: 503,
      errmsg: 'the WeChat login service is unavailable, please try again later',
    });
    expect(JSON.stringify(res.body)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|secret|fetch/i);
  });

  it('gives up on a WeChat that does not answer in time', async () => {
    const login = createWechatMiniProgramLogin({
      baseUrl: base,
      appId: 'wx-test-app',
      appSecret: 'test-secret',
      timeoutMs: 200,
    });
    const started = Date.now();
    const err = await login.exchangeCode('hang').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MiniProgramLoginError);
    expect((err as MiniProgramLoginError).reason).toBe('unavailable');
    // the hanging server never answers: only the timeout can end the call, long before the test times out
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('refuses an answer without an open id', async () => {
    const login = createWechatMiniProgramLogin({
      baseUrl: base,
      appId: 'wx-test-app',
      appSecret: 'wrong',
      timeoutMs: 2000,
    });
    const err = await login.exchangeCode('good-3').catch((e: unknown) => e);
    expect(err).toMatchObject({ reason: 'rejected', wechatErrcode: 40125, message: 'invalid appsecret' });
  });
});

describe('MP_LOGIN_PROVIDER configuration', () => {
  it('defaults to local, and wechat needs the app id and secret', () => {
    expect(loadConfig({}).mpLoginProvider).toBe('local');
    expect(() => loadConfig({ MP_LOGIN_PROVIDER: 'wechat', WECHAT_APP_ID: 'wx1' })).toThrow(
      /WECHAT_APP_ID and WECHAT_APP_SECRET/,
    );
    expect(
      loadConfig({ MP_LOGIN_PROVIDER: 'wechat', WECHAT_APP_ID: 'wx1', WECHAT_APP_SECRET: 's' }).mpLoginProvider,
    ).toBe('wechat');
    expect(() => loadConfig({ MP_LOGIN_PROVIDER: 'qq' })).toThrow(/one of local, wechat/);
  });

  it('must be chosen explicitly in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/MP_LOGIN_PROVIDER must be set/);
    expect(loadConfig({ NODE_ENV: 'production', MP_LOGIN_PROVIDER: 'local' }).mpLoginProvider).toBe('local');
  });
});
