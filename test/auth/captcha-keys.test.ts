import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { TEST_ADMIN } from '../helpers/test-env.js';
import { requestCaptcha } from '../helpers/platform-fixtures.js';

const LOGIN = '/manage-api/auth/login';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

describe("captcha session keys are the server's", () => {
  it('answers a client-chosen SESSION cookie with a key of its own, and keeps no code under the chosen one', async () => {
    const chosen = 'attacker-chosen-key-0123456789';
    const { res, key, code } = await requestCaptcha(t, { cookie: `SESSION=${chosen}` });
    expect(key).not.toBe(chosen);
    expect(key).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(String(res.headers['set-cookie'])).toMatch(new RegExp(`^SESSION=${key};`));
    expect(await t.store.get(`captcha:${chosen}`)).toBeNull();
    // the chosen key cannot log in, whatever code is sent; the issued one can
    const withChosen = await t.post(LOGIN, {
      username: TEST_ADMIN.username,
      password: TEST_ADMIN.password,
      code,
      uuid: chosen,
    });
    expect(withChosen.body).toEqual({ errcode: 1_002_000_002, errmsg: 'please request a captcha first' });
    const viaCookie = await t.call('POST', LOGIN, {
      body: { username: TEST_ADMIN.username, password: TEST_ADMIN.password, code },
      headers: { cookie: `SESSION=${chosen}` },
    });
    expect(viaCookie.body.errcode).toBe(1_002_000_002);
    expect(
      (await t.post(LOGIN, { username: TEST_ADMIN.username, password: TEST_ADMIN.password, code, uuid: key })).body
        .errcode,
    ).toBe(0);
  });

  it('reuses an issued key while it lives, and issues a new one once it has expired', async () => {
    const first = await requestCaptcha(t);
    expect((await requestCaptcha(t, { cookie: `SESSION=${first.key}` })).key).toBe(first.key);
    await t.store.del(`captcha-session:${first.key}`);
    const after = await requestCaptcha(t, { cookie: `SESSION=${first.key}` });
    expect(after.key).not.toBe(first.key);
    expect(after.code).toMatch(/^\d{4}$/);
  });
});
