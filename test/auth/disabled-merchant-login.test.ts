import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChecker, createMerchant } from '../helpers/factories.js';
import { requestCaptcha } from '../helpers/platform-fixtures.js';
import { staffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * A login with the right password refused because the account's merchant is disabled is written to
 * login_log as a failure, as for a disabled account (staff on /manage-api, verifiers on /app-api).
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

const disabled = { errcode: 1_002_000_001, errmsg: 'this account is disabled' };
const setMerchant = (id: number, status: number) =>
  t.db.updateTable('merchant').set({ status }).where('id', '=', id).execute();
const logRows = (kind: string, accountId: number) =>
  t.db
    .selectFrom('login_log')
    .select(['username', 'success', 'errcode'])
    .where('account_kind', '=', kind)
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();

async function staffLogin(username: string, password: string) {
  const { key, code } = await requestCaptcha(t);
  return (
    await t.app.inject({
      method: 'POST',
      url: '/manage-api/auth/login',
      payload: { username, password, code, uuid: key },
    })
  ).json();
}

describe('staff login under a disabled merchant', () => {
  it('is refused as disabled and logged as a failure; after enabling, it succeeds and is logged', async () => {
    const merchantId = await createMerchant(t.db);
    const u = await staffSession(t, { kind: 'merchant', merchantId });
    await setMerchant(merchantId, 0);
    expect(await staffLogin(u.username, u.password)).toEqual(disabled);
    expect(await logRows('admin', u.userId)).toEqual([
      { username: u.username, success: false, errcode: 1_002_000_001 },
    ]);
    expect(
      await t.db.selectFrom('admin_user').select('last_login_at').where('id', '=', u.userId).executeTakeFirstOrThrow(),
    ).toEqual({ last_login_at: null });

    await setMerchant(merchantId, 1);
    expect((await staffLogin(u.username, u.password)).errcode).toBe(0);
    expect((await logRows('admin', u.userId)).map((r) => r.success)).toEqual([false, true]);
  });
});

describe('verifier login under a disabled merchant', () => {
  it('is refused as disabled and logged as a failure; after enabling, it succeeds and is logged', async () => {
    const merchantId = await createMerchant(t.db);
    const checker = await createChecker(t.db, { merchant_id: merchantId });
    await setMerchant(merchantId, 0);
    const login = () => t.post('/app-api/auth/checkerLogin', { mobile: checker.mobile, password: checker.password });
    expect((await login()).body).toEqual(disabled);
    expect(await logRows('checker', checker.id)).toEqual([
      { username: checker.mobile, success: false, errcode: 1_002_000_001 },
    ]);

    await setMerchant(merchantId, 1);
    expect((await login()).body.errcode).toBe(0);
    expect((await logRows('checker', checker.id)).map((r) => r.success)).toEqual([false, true]);
  });
});
