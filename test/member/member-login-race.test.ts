import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/platform/store/index.js';
import { localOpenId } from '../../src/platform/wechat/local-provider.js';
import { hookedStore } from '../helpers/hooked-store.js';
import { testStorePrefix } from '../helpers/store-prefix.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { uniq } from '../helpers/factories.js';

/**
 * A member disabled between its login's commit and the caching of its session: the disable's
 * revocation deleted the new token row, so the login is refused rather than answering a dead token.
 */
let t: TestApp;
let admin: string;
let hooked: ReturnType<typeof hookedStore>;
beforeAll(async () => {
  hooked = hookedStore(await openStore(process.env.REDIS_URL || null, testStorePrefix('mrace')));
  t = await createTestApp({}, { store: hooked.store });
  admin = (await t.loginStaff()).accessToken;
});
afterAll(async () => {
  await t?.close();
  await hooked?.store.close();
});

describe('a mini-program login racing a disable of its member', () => {
  it('is refused (401) and logged as a failed login; no token of the member is left', async () => {
    const code = uniq('race-');
    const first = await t.post('/mp-api/auth/oauth2', { code });
    expect(first.body.errcode).toBe(0);
    const id = first.body.data.userId as number;

    hooked.beforeNextSession(async () => {
      expect((await t.post('/manage-api/member/updateMemberStatus', { id, status: 0 }, admin)).body.errcode).toBe(0);
    });
    const res = await t.post('/mp-api/auth/oauth2', { code });
    expect(res.body).toEqual({ errcode: 401, errmsg: 'the account was changed while logging in, please log in again' });
    const rows = await t.db
      .selectFrom('oauth2_token')
      .select('id')
      .where('account_kind', '=', 'member')
      .where('account_id', '=', id)
      .execute();
    expect(rows).toEqual([]);
    const last = await t.db
      .selectFrom('login_log')
      .select(['success', 'errcode', 'username'])
      .where('account_kind', '=', 'member')
      .where('account_id', '=', id)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    expect(last).toEqual({ success: false, errcode: 401, username: localOpenId(code) });
    // the next login of the disabled member is refused as such
    expect((await t.post('/mp-api/auth/oauth2', { code })).body.errcode).toBe(1_002_000_001);
  });
});
