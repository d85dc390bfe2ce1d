import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/platform/auth/token-codec.js';
import { staffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import {
  activate,
  bankToken,
  createBankChannel,
  createBankUser,
  newPhone,
  P,
  recordingSms,
  requestCode,
  type BankChannel,
  type BankStaff,
  type Recorder,
} from './bank-fixtures.js';

/** sendSmsCode, bankLogin, bankUserLogin and logout; bank sessions versus staff sessions. */

let t: TestApp;
let rec: Recorder;
let bank: BankChannel;

beforeAll(async () => {
  rec = await recordingSms();
  t = await createTestApp({}, { store: rec.store, services: { sms: rec.sms } });
  bank = await createBankChannel(t.db, {
    operators: [
      { total: 50, day: 50 },
      { total: 5, day: 5 },
    ],
    pool: 10,
  });
});
afterAll(async () => {
  await t?.close();
  await rec?.store.close();
});

const operator = () => createBankUser(t.db, { businessId: bank.businessId, operatorRowId: bank.operators[0].id });
const loginBody = (u: BankStaff, verifyCode: string, password = u.password) => ({
  mobile: u.mobile,
  password,
  verifyCode,
});
const textsTo = (phone: string) => rec.sender.outbox.filter((m) => m.phone === phone).length;

async function bankLogin(u: BankStaff) {
  const code = await requestCode(t, rec, u.mobile, 'login');
  const res = await t.post(`${P}/bankLogin`, loginBody(u, code));
  expect(res.body.data?.code, JSON.stringify(res.body)).toBe(200);
  return res.body.data.data as { accessToken: string; refreshToken: string; userId: number };
}

describe('sendSmsCode', () => {
  it('refuses a bad phone or purpose with 400 naming the field', async () => {
    expect((await t.post(`${P}/sendSmsCode`, { phone: '1234', purpose: 'login' })).body.errmsg).toMatch(
      /^phone is invalid/,
    );
    expect((await t.post(`${P}/sendSmsCode`, { phone: newPhone(), purpose: 'register' })).body.errmsg).toBe(
      'purpose is invalid: must be one of login, user-login, activate',
    );
    expect((await t.post(`${P}/sendSmsCode`, { purpose: 'login' })).body.errmsg).toBe('phone is required');
  });

  it('texts a login code only to a bank user, answering a stranger the same way, with the same one-minute gap', async () => {
    const user = await operator();
    const stranger = newPhone();
    for (const phone of [user.mobile, stranger]) {
      const res = await t.post(`${P}/sendSmsCode`, { phone, purpose: 'login' });
      expect(res.body).toEqual({ errcode: 0, errmsg: 'success', data: { expiresInS: 300 } });
      const again = await t.post(`${P}/sendSmsCode`, { phone, purpose: 'login' });
      expect(again.body.errcode).toBe(429);
      expect(again.body.errmsg).toMatch(
        /^an SMS code was sent to this phone less than a minute ago, please try again in \d+ seconds?$/,
      );
    }
    expect(textsTo(user.mobile)).toBe(1);
    expect(textsTo(stranger)).toBe(0);
  });

  it('texts a user-login code to any valid phone, one a minute, under the login rate and the daily limit', async () => {
    const teller = await bankToken(t, await operator());
    const { person } = await activate(t, rec, teller);
    const stranger = newPhone();
    rec.advance(61);
    await requestCode(t, rec, person.phone, 'user-login');
    expect(rec.sender.lastTo(person.phone)?.template).toBe('verifyCode');
    // spec B 4.4 rule 4: a phone without an activation gets its code too (bankUserLogin then answers 502)
    await requestCode(t, rec, stranger, 'user-login');
    expect(textsTo(stranger)).toBe(1);
    const again = await t.post(`${P}/sendSmsCode`, { phone: stranger, purpose: 'user-login' });
    expect(again.body.errcode).toBe(429);
    expect(again.body.errmsg).toMatch(/^an SMS code was sent to this phone less than a minute ago/);
    expect(textsTo(stranger)).toBe(1);
  });

  it('stops texting user-login codes to a phone after the shared daily limit of ten', async () => {
    const stranger = newPhone();
    for (let i = 0; i < 10; i++) {
      await requestCode(t, rec, stranger, 'user-login');
      rec.advance(61);
      await t.store.del(`bank:sms-gap:${stranger}`); // the route's own one-minute gap runs on the real clock
    }
    const eleventh = await t.post(`${P}/sendSmsCode`, { phone: stranger, purpose: 'user-login' });
    expect(eleventh.body.errcode).toBe(429);
    expect(textsTo(stranger)).toBe(10);
  });

  it('texts an activation code only from a bank operator session', async () => {
    const phone = newPhone();
    expect((await t.post(`${P}/sendSmsCode`, { phone, purpose: 'activate' })).body.errcode).toBe(401);
    const staff = await staffSession(t, { kind: 'platform', permissions: ['*'] });
    expect((await t.post(`${P}/sendSmsCode`, { phone, purpose: 'activate' }, staff.token)).body.errcode).toBe(401);
    const manager = await bankToken(t, await createBankUser(t.db, { businessId: bank.businessId }));
    expect((await t.post(`${P}/sendSmsCode`, { phone, purpose: 'activate' }, manager)).body.errcode).toBe(
      1_014_000_002,
    );
    expect(textsTo(phone)).toBe(0);
    await requestCode(t, rec, phone, 'activate', await bankToken(t, await operator()));
    expect(textsTo(phone)).toBe(1);
  });
});

describe('bankLogin', () => {
  it('answers 500 without a code, 501 for a wrong one, and logs both', async () => {
    const user = await operator();
    expect((await t.post(`${P}/bankLogin`, loginBody(user, '123456'))).body).toEqual({
      errcode: 0,
      errmsg: 'success',
      data: { code: 500, msg: 'the SMS code has expired, please request a new one', data: null },
    });
    const code = await requestCode(t, rec, user.mobile, 'login');
    const wrong = await t.post(`${P}/bankLogin`, loginBody(user, code === '111111' ? '222222' : '111111'));
    expect(wrong.body.data).toEqual({ code: 501, msg: 'the SMS code is wrong', data: null });
    // only the database shows the login log
    const logs = await t.db
      .selectFrom('login_log')
      .select(['account_kind', 'success', 'errcode'])
      .where('username', '=', user.mobile)
      .orderBy('id')
      .execute();
    expect(logs).toEqual([
      { account_kind: 'bank', success: false, errcode: 1_002_000_004 },
      { account_kind: 'bank', success: false, errcode: 1_002_000_005 },
    ]);
  });

  it('refuses a wrong password as staff login does, without spending the code', async () => {
    const user = await operator();
    const code = await requestCode(t, rec, user.mobile, 'login');
    expect((await t.post(`${P}/bankLogin`, loginBody(user, code, 'Wrong@2026'))).body).toEqual({
      errcode: 1_002_000_000,
      errmsg: 'wrong username or password',
    });
    expect((await t.post(`${P}/bankLogin`, loginBody(user, code))).body.data.code).toBe(200);
  });

  it('tells a disabled user so after a right password', async () => {
    const user = await operator();
    const code = await requestCode(t, rec, user.mobile, 'login');
    // Written directly: no operation disables a bank user (their management is not shown, spec B 4.4), and the
    // code is texted only to a user who may log in, so it cannot be made disabled.
    await t.db.updateTable('bank_user').set({ status: 0 }).where('id', '=', user.id).execute();
    expect((await t.post(`${P}/bankLogin`, loginBody(user, code))).body.errcode).toBe(1_002_000_001);
  });

  it('answers the tokens and the relations; the session serves bank routes, survives a refresh, and the code is spent', async () => {
    const user = await operator();
    const code = await requestCode(t, rec, user.mobile, 'login');
    const res = await t.post(`${P}/bankLogin`, loginBody(user, code));
    expect(res.body.data).toEqual({
      code: 200,
      msg: 'success',
      data: {
        userId: user.id,
        mobile: user.mobile,
        name: expect.any(String),
        accessToken: expect.any(String),
        refreshToken: expect.any(String),
        expiresTime: expect.any(String),
        businessId: bank.businessId,
        businessName: expect.stringMatching(/^Bank /),
        operatorId: bank.operators[0].operatorId,
        operatorName: bank.operators[0].name,
        channelInfoId: bank.channelInfoId,
      },
    });
    const { accessToken, refreshToken } = res.body.data.data;
    const ops = await t.post(`${P}/bankOperatorList`, {}, accessToken);
    expect(ops.body.data.map((o: { id: number }) => o.id)).toEqual([bank.operators[0].id]);
    expect((await t.post(`${P}/bankLogin`, loginBody(user, code))).body.data.code).toBe(500);
    // only the database shows a bank user's last login
    const row = await t.db
      .selectFrom('bank_user')
      .select(['last_login_at'])
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(row.last_login_at).not.toBeNull();

    // The relations are the session's: a new operator link is seen at the next login, not by this session.
    // Written directly: no operation links a bank user to another operator.
    await t.db.updateTable('bank_user').set({ operator_id: bank.operators[1].id }).where('id', '=', user.id).execute();
    const refreshed = await t.post('/manage-api/auth/refreshToken', { refreshToken });
    expect(refreshed.body.errcode).toBe(0);
    await t.store.del(`sess:${hashToken(refreshed.body.data.accessToken)}`);
    const after = await t.post(`${P}/bankOperatorList`, {}, refreshed.body.data.accessToken);
    expect(after.body.data.map((o: { id: number }) => o.id)).toEqual([bank.operators[0].id]);
  });

  it('keeps bank and staff sessions apart', async () => {
    const { accessToken } = await bankLogin(await operator());
    expect((await t.post('/manage-api/sales/querySalesPage', {}, accessToken)).body).toEqual({
      errcode: 401,
      errmsg: 'this token is not valid for this channel',
    });
    expect((await t.post('/manage-api/auth/logout', {}, accessToken)).body.errcode).toBe(401);
    const staff = await staffSession(t, { kind: 'platform', permissions: ['*'] });
    for (const op of ['bankOperatorList', 'bankStat', 'getActivationDetailList', 'exportBankStatDetail', 'logout']) {
      expect((await t.post(`${P}/${op}`, {}, staff.token)).body.errcode, op).toBe(401);
    }
  });

  it('logs out: the token stops working at once', async () => {
    const { accessToken } = await bankLogin(await operator());
    expect((await t.post(`${P}/logout`, {}, accessToken)).body).toEqual({ errcode: 0, errmsg: 'success' });
    expect((await t.post(`${P}/bankOperatorList`, {}, accessToken)).body.errcode).toBe(401);
  });
});

describe('bankUserLogin', () => {
  it('answers 500 without a code, 501 for a wrong one, 502 when the phone has no activation', async () => {
    const phone = newPhone();
    expect((await t.post(`${P}/bankUserLogin`, { mobile: phone, verifyCode: '123456' })).body.data.code).toBe(500);
    const teller = await bankToken(t, await operator());
    const { person } = await activate(t, rec, teller);
    rec.advance(61); // past the resend gap that the activation code opened
    const code = await requestCode(t, rec, person.phone, 'user-login');
    const wrong = await t.post(`${P}/bankUserLogin`, {
      mobile: person.phone,
      verifyCode: code === '333333' ? '444444' : '333333',
    });
    expect(wrong.body.data).toEqual({ code: 501, msg: 'the SMS code is wrong', data: null });

    // 502: the phone's activation has gone (its records were removed by an operator)
    // Written directly: no operation of this service removes activation records.
    await t.db.deleteFrom('activation_record').where('user_phone', '=', person.phone).execute();
    expect((await t.post(`${P}/bankUserLogin`, { mobile: person.phone, verifyCode: code })).body.data).toEqual({
      code: 502,
      msg: 'this phone number has no card activated through a bank channel',
      data: null,
    });
  });

  it('tells a phone that never had a benefit so (502) after a right code, and spends that code', async () => {
    const stranger = newPhone();
    const code = await requestCode(t, rec, stranger, 'user-login');
    const wrong = await t.post(`${P}/bankUserLogin`, {
      mobile: stranger,
      verifyCode: code === '333333' ? '444444' : '333333',
    });
    expect(wrong.body.data).toEqual({ code: 501, msg: 'the SMS code is wrong', data: null });
    expect((await t.post(`${P}/bankUserLogin`, { mobile: stranger, verifyCode: code })).body).toEqual({
      errcode: 0,
      errmsg: 'success',
      data: { code: 502, msg: 'this phone number has no card activated through a bank channel', data: null },
    });
    // spent: the same code cannot be replayed, even once the phone has an activation
    expect((await t.post(`${P}/bankUserLogin`, { mobile: stranger, verifyCode: code })).body.data).toEqual({
      code: 500,
      msg: 'the SMS code has expired, please request a new one',
      data: null,
    });
    // only the database shows the login log
    const logs = await t.db
      .selectFrom('login_log')
      .select(['account_kind', 'success', 'errcode'])
      .where('username', '=', stranger)
      .orderBy('id')
      .execute();
    expect(logs).toEqual([
      { account_kind: 'member', success: false, errcode: 1_002_000_005 },
      { account_kind: 'member', success: false, errcode: 502 },
      { account_kind: 'member', success: false, errcode: 1_002_000_004 },
    ]);
  });

  it('gives the holder a member session and the cards bound to the phone', async () => {
    const teller = await bankToken(t, await operator());
    const { res: activated, person } = await activate(t, rec, teller);
    rec.advance(61); // past the resend gap that the activation code opened
    const code = await requestCode(t, rec, person.phone, 'user-login');
    const res = await t.post(`${P}/bankUserLogin`, { mobile: person.phone, verifyCode: code });
    expect(res.body.data).toMatchObject({ code: 200, msg: 'success' });
    const d = res.body.data.data;
    expect(d).toMatchObject({ userId: activated.body.data.data.memberId, mobile: person.phone });
    expect(d.cards).toEqual([
      {
        cardNumber: activated.body.data.data.cardNumber,
        cardModelName: activated.body.data.data.cardModelName,
        status: 2,
        activeTime: activated.body.data.data.activeTime,
        expireTime: activated.body.data.data.expireTime,
        userName: person.userName,
        idType: '1',
        idNo: `${person.userIdno.slice(0, 6)}********${person.userIdno.slice(14)}`,
      },
    ]);
    // a member session of the mini program, not a bank one
    expect((await t.post('/mp-api/auth/logout', {}, d.accessToken)).body.errcode).toBe(0);
    // the code was spent
    expect((await t.post(`${P}/bankUserLogin`, { mobile: person.phone, verifyCode: code })).body.data.code).toBe(500);
  });

  it('refuses the holder of a disabled member', async () => {
    const teller = await bankToken(t, await operator());
    const { res: activated, person } = await activate(t, rec, teller);
    const staff = await staffSession(t, { kind: 'platform', permissions: ['member:write'] });
    const disabled = await t.post(
      '/manage-api/member/updateMemberStatus',
      { id: activated.body.data.data.memberId, status: 0 },
      staff.token,
    );
    expect(disabled.body.errcode, disabled.body.errmsg).toBe(0);
    rec.advance(61); // past the resend gap that the activation code opened
    const code = await requestCode(t, rec, person.phone, 'user-login');
    expect((await t.post(`${P}/bankUserLogin`, { mobile: person.phone, verifyCode: code })).body.errcode).toBe(
      1_002_000_001,
    );
  });
});

describe('a bank password', () => {
  it('locks the account after five wrong passwords (423)', async () => {
    const user = await operator();
    const code = await requestCode(t, rec, user.mobile, 'login');
    const answers: number[] = [];
    for (let i = 0; i < 5; i++)
      answers.push((await t.post(`${P}/bankLogin`, loginBody(user, code, `Wrong@${i}`))).body.errcode);
    expect(answers).toEqual([1_002_000_000, 1_002_000_000, 1_002_000_000, 1_002_000_000, 423]);
  });
});
