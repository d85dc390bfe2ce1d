import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hookedStore } from '../helpers/hooked-store.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import {
  activate,
  bankToken,
  createBankChannel,
  createBankUser,
  P,
  recordingSms,
  requestCode,
  type Recorder,
} from './bank-fixtures.js';

/**
 * bankUserLogin racing a disable of the holder's member: the login issues its token under the lock a
 * revocation takes and reads the member afresh there, and refuses when the revocation deleted its
 * new row before the session was cached. No token of the disabled member is left working.
 */
let t: TestApp;
let rec: Recorder;
let hooked: ReturnType<typeof hookedStore>;
let admin: string;
let teller: string;
beforeAll(async () => {
  rec = await recordingSms();
  hooked = hookedStore(rec.store);
  t = await createTestApp({}, { store: hooked.store, services: { sms: rec.sms } });
  admin = (await t.loginStaff()).accessToken;
  const bank = await createBankChannel(t.db, { operators: [{ total: 50, day: 50 }], pool: 10 });
  teller = await bankToken(
    t,
    await createBankUser(t.db, { businessId: bank.businessId, operatorRowId: bank.operators[0].id }),
  );
});
afterAll(async () => {
  await t?.close();
  await rec?.store.close();
});

const setStatus = async (id: number, status: number) =>
  expect((await t.post('/manage-api/member/updateMemberStatus', { id, status }, admin)).body.errcode).toBe(0);
const tokensOf = (id: number) =>
  t.db
    .selectFrom('oauth2_token')
    .select('id')
    .where('account_kind', '=', 'member')
    .where('account_id', '=', id)
    .execute();

async function holder() {
  const { res, person } = await activate(t, rec, teller);
  expect(res.body.data?.code, JSON.stringify(res.body)).toBe(200);
  rec.advance(61); // past the resend gap that the activation code opened
  return { memberId: res.body.data.data.memberId as number, phone: person.phone };
}

describe('bankUserLogin racing a disable of the member', () => {
  it('is refused (401) when the disable lands between its commit and its cached session; the code is not spent', async () => {
    const h = await holder();
    const code = await requestCode(t, rec, h.phone, 'user-login');
    hooked.beforeNextSession(() => setStatus(h.memberId, 0));
    const res = await t.post(`${P}/bankUserLogin`, { mobile: h.phone, verifyCode: code });
    expect(res.body).toEqual({ errcode: 401, errmsg: 'the account was changed while logging in, please log in again' });
    expect(await tokensOf(h.memberId)).toEqual([]);
    const last = await t.db
      .selectFrom('login_log')
      .select(['success', 'errcode'])
      .where('account_kind', '=', 'member')
      .where('username', '=', h.phone)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    expect(last).toEqual({ success: false, errcode: 401 });
    await setStatus(h.memberId, 1);
    expect((await t.post(`${P}/bankUserLogin`, { mobile: h.phone, verifyCode: code })).body.data.code).toBe(200);
  });

  it('leaves no working token when parallel logins race the disable', async () => {
    let succeeded = 0;
    for (let round = 0; round < 5; round++) {
      const h = await holder();
      const code = await requestCode(t, rec, h.phone, 'user-login');
      const logins = Array.from({ length: 8 }, (_, i) =>
        t.app
          .inject({
            method: 'POST',
            url: `${P}/bankUserLogin`,
            remoteAddress: `10.93.${round}.${i + 1}`,
            payload: { mobile: h.phone, verifyCode: code },
          })
          .then((r) => r.json() as { errcode: number; data?: { code: number; data?: { accessToken: string } } }),
      );
      await new Promise((r) => setTimeout(r, round * 15));
      await setStatus(h.memberId, 0);
      const answers = await Promise.all(logins);
      const tokens = answers.flatMap((a) =>
        a.errcode === 0 && a.data?.code === 200 ? [a.data.data!.accessToken] : [],
      );
      expect(
        answers.every(
          (a) => (a.errcode === 0 && a.data !== undefined) || a.errcode === 401 || a.errcode === 1_002_000_001,
        ),
      ).toBe(true);
      succeeded += tokens.length;
      expect(await tokensOf(h.memberId)).toEqual([]);
      for (const token of tokens) expect((await t.post('/mp-api/auth/logout', {}, token)).body.errcode).toBe(401);
    }
    expect(succeeded).toBeGreaterThan(0);
  });
});
