import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import {
  bankToken,
  createBankChannel,
  createBankUser,
  newPerson,
  P,
  recordingSms,
  requestCode,
  type BankChannel,
  type BankStaff,
  type Recorder,
} from './bank-fixtures.js';

/**
 * Disabling the bank's merchant cuts the bank off (QA auth #3): its bank users' sessions end, bankLogin
 * refuses them as disabled, and no card is activated under the disabled merchant.
 */
let t: TestApp;
let rec: Recorder;
let admin: string;

beforeAll(async () => {
  rec = await recordingSms();
  t = await createTestApp({}, { store: rec.store, services: { sms: rec.sms } });
  admin = (await t.loginStaff()).accessToken;
});
afterAll(async () => {
  await t?.close();
  await rec?.store.close();
});

const disabled = { errcode: 1_002_000_001, errmsg: 'this account is disabled' };
const setMerchantStatus = (bank: BankChannel, status: number) =>
  t
    .post('/manage-api/merchant/updateMerchantStatus', { id: bank.merchantId, status }, admin)
    .then((r) => expect(r.body.errcode).toBe(0));

async function bankLogin(u: BankStaff) {
  // past the resend gaps of the login code (the codes' clock and the login-free per-phone slot)
  rec.advance(61);
  await rec.store.del(`bank:sms-gap:${u.mobile}`);
  const verifyCode = await requestCode(t, rec, u.mobile, 'login');
  return (await t.post(`${P}/bankLogin`, { mobile: u.mobile, password: u.password, verifyCode })).body;
}

describe("disabling a bank's merchant", () => {
  it('ends its bank sessions and refuses its bank logins until it is enabled again', async () => {
    const bank = await createBankChannel(t.db, { pool: 2 });
    const teller = await createBankUser(t.db, { businessId: bank.businessId, operatorRowId: bank.operators[0]!.id });
    const login = await bankLogin(teller);
    expect(login.data.code).toBe(200);
    const token = login.data.data.accessToken as string;
    expect((await t.post(`${P}/bankStat`, {}, token)).body.errcode).toBe(0);

    await setMerchantStatus(bank, 0);
    expect((await t.post(`${P}/bankStat`, {}, token)).body.errcode).toBe(401);
    expect(
      await t.db
        .selectFrom('oauth2_token')
        .select('id')
        .where('account_kind', '=', 'bank')
        .where('account_id', '=', teller.id)
        .execute(),
    ).toEqual([]);
    expect(await bankLogin(teller)).toEqual(disabled);

    await setMerchantStatus(bank, 1);
    const again = await bankLogin(teller);
    expect(again.data.code).toBe(200);
    expect((await t.post(`${P}/bankStat`, {}, again.data.data.accessToken)).body.errcode).toBe(0);
  });

  it('refuses a card activation under a disabled merchant and writes nothing', async () => {
    const bank = await createBankChannel(t.db, { pool: 2 });
    const teller = await createBankUser(t.db, { businessId: bank.businessId, operatorRowId: bank.operators[0]!.id });
    const token = await bankToken(t, teller);
    const person = newPerson();
    // the session (and its bank relations) are in use when the merchant is disabled behind them, as
    // for a request in flight during the disable
    const verifyCode = await requestCode(t, rec, person.phone, 'activate', token);
    await t.db.updateTable('merchant').set({ status: 0 }).where('id', '=', bank.merchantId).execute();

    const res = await t.post(`${P}/activateBankCard`, { ...person, verifyCode }, token);
    expect(res.body).toEqual({ errcode: 1_014_000_003, errmsg: "this bank's merchant is disabled" });
    expect(
      await t.db
        .selectFrom('activation_record')
        .select('id')
        .where('channel_info_id', '=', bank.channelInfoId)
        .execute(),
    ).toEqual([]);
    expect(
      await t.db
        .selectFrom('card')
        .select('id')
        .where('merchant_id', '=', bank.merchantId)
        .where('status', '=', 1)
        .execute(),
    ).toHaveLength(2);

    await t.db.updateTable('merchant').set({ status: 1 }).where('id', '=', bank.merchantId).execute();
    const ok = await t.post(`${P}/activateBankCard`, { ...person, verifyCode }, token);
    expect(ok.body.data.code, JSON.stringify(ok.body)).toBe(200);
  });
});
