import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChecker, createMerchant, createShop, uniq } from '../helpers/factories.js';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const P = '/manage-api/merchant';
const ALL = ['merchant:read', 'merchant:write'];

let t: TestApp;
let platform: StaffSession;
let merchantA: StaffSession;
let merchantB: StaffSession;
let shopA: StaffSession;

beforeAll(async () => {
  t = await createTestApp();
  platform = await staffSession(t, { kind: 'platform', permissions: ALL });
  merchantA = await staffSession(t, { kind: 'merchant', permissions: ALL });
  merchantB = await staffSession(t, { kind: 'merchant', permissions: ALL });
  shopA = await staffSession(t, { kind: 'shop', merchantId: merchantA.merchantId!, permissions: ALL });
});
afterAll(() => t?.close());

async function addOk(body: Record<string, unknown>) {
  const res = await t.post(`${P}/addMerchant`, body, platform.token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data;
}

describe('rejection matrix', () => {
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/addMerchant`,
    permission: 'merchant:write',
    validBody: () => ({ name: uniq('M '), merchantType: 2 }),
    badInputs: [
      { body: () => ({ merchantType: 2 }), field: 'name', rule: /name is required/ },
      { body: () => ({ name: '   ', merchantType: 2 }), field: 'name' },
      { body: () => ({ name: 'x'.repeat(129), merchantType: 2 }), field: 'name' },
      { body: () => ({ name: 'Type missing' }), field: 'merchantType', rule: /required/ },
      { body: () => ({ name: 'Bad type', merchantType: 4 }), field: 'merchantType', rule: /between 1 and 3/ },
      { body: () => ({ name: 'Bad phone', merchantType: 2, contactPhone: 'call me' }), field: 'contactPhone' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/updateMerchant`,
    permission: 'merchant:write',
    validBody: () => ({ id: 1, name: 'x' }),
    badInputs: [{ body: () => ({ name: 'x' }), field: 'id', rule: /id is required/ }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/updateMerchantStatus`,
    permission: 'merchant:write',
    validBody: () => ({ id: 1, status: 1 }),
    badInputs: [
      { body: () => ({ id: 1, status: 2 }), field: 'status', rule: /between 0 and 1/ },
      { body: () => ({ id: 1 }), field: 'status' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/getMerchant`,
    permission: 'merchant:read',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({}), field: 'id', rule: /id is required/ }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/queryMerchantList`,
    permission: 'merchant:read',
    validBody: () => ({}),
    badInputs: [{ body: () => ({ status: 5 }), field: 'status' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/queryMerchantPage`,
    permission: 'merchant:read',
    validBody: () => ({}),
    badInputs: [{ body: () => ({ pageSize: 'ten' }), field: 'pageSize' }],
  });
});

describe('merchants', () => {
  it('adds, reads, updates and lists a merchant', async () => {
    const name = uniq('Lake operator ');
    const m = await addOk({
      name: `  ${name} `,
      merchantType: 2,
      contactName: 'Ms Wang',
      contactPhone: '0571-88886666',
      address: 'Lake road 1',
    });
    expect(m).toMatchObject({
      id: expect.any(Number),
      name,
      merchantType: 2,
      contactName: 'Ms Wang',
      contactPhone: '0571-88886666',
      address: 'Lake road 1',
      remark: null,
      status: 1,
      shopCount: 0,
    });
    expect(m.createdTime).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    await createShop(t.db, { merchant_id: m.id });
    const got = await t.post(`${P}/getMerchant`, { id: m.id }, platform.token);
    expect(got.body.data).toMatchObject({ id: m.id, shopCount: 1 });

    const upd = await t.post(
      `${P}/updateMerchant`,
      { id: m.id, name: `${name} Ltd`, remark: 'key partner', address: '' },
      platform.token,
    );
    expect(upd.body).toEqual({ errcode: 0, errmsg: 'success' });
    const after = (await t.post(`${P}/getMerchant`, { id: m.id }, platform.token)).body.data;
    expect(after).toMatchObject({
      name: `${name} Ltd`,
      remark: 'key partner',
      address: null,
      contactName: 'Ms Wang',
      merchantType: 2,
    });

    const page = await t.post(`${P}/queryMerchantPage`, { keywords: name, pageSize: 5 }, platform.token);
    expect(page.body.data).toEqual({ list: [expect.objectContaining({ id: m.id })], total: 1 });
    const list = await t.post(
      `${P}/queryMerchantList`,
      { name: name.toUpperCase(), merchantType: 2, status: 1 },
      platform.token,
    );
    expect(list.body.data.map((x: { id: number }) => x.id)).toEqual([m.id]);
  });

  it('refuses a second living merchant of the same name with 409, also when two adds race', async () => {
    const name = uniq('Twin ');
    await addOk({ name, merchantType: 3 });
    const dup = await t.post(`${P}/addMerchant`, { name, merchantType: 2 }, platform.token);
    expect(dup.body).toEqual({ errcode: 409, errmsg: `a merchant named "${name}" already exists` });
    const race = uniq('Race ');
    const answers = await Promise.all(
      [1, 2, 3].map(() => t.post(`${P}/addMerchant`, { name: race, merchantType: 2 }, platform.token)),
    );
    expect(answers.map((a) => a.body.errcode).sort()).toEqual([0, 409, 409]);
  });

  it('lets only platform users add merchants or change their status', async () => {
    expect((await t.post(`${P}/addMerchant`, { name: uniq('Mine '), merchantType: 2 }, merchantA.token)).body).toEqual({
      errcode: 403,
      errmsg: 'only platform users may add merchants',
    });
    expect(
      (await t.post(`${P}/updateMerchantStatus`, { id: merchantA.merchantId, status: 0 }, merchantA.token)).body,
    ).toEqual({ errcode: 403, errmsg: 'only platform users may enable or disable a merchant' });
  });

  it("lets a merchant user see and edit its own merchant's details only", async () => {
    const own = await t.post(`${P}/getMerchant`, { id: merchantA.merchantId }, merchantA.token);
    expect(own.body.data.id).toBe(merchantA.merchantId);
    expect((await t.post(`${P}/getMerchant`, { id: merchantB.merchantId }, merchantA.token)).body).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another merchant',
    });
    expect(
      (await t.post(`${P}/updateMerchant`, { id: merchantB.merchantId, name: 'x' }, merchantA.token)).body.errcode,
    ).toBe(403);
    const name = own.body.data.name;
    expect(
      (await t.post(`${P}/updateMerchant`, { id: merchantA.merchantId, name, contactName: 'Mr Li' }, merchantA.token))
        .body.errcode,
    ).toBe(0);
    expect(
      (await t.post(`${P}/updateMerchant`, { id: merchantA.merchantId, name: `${name} renamed` }, merchantA.token))
        .body,
    ).toEqual({ errcode: 403, errmsg: 'only platform users may rename a merchant or change its type' });
    expect(
      (await t.post(`${P}/updateMerchant`, { id: merchantA.merchantId, name, merchantType: 1 }, merchantA.token)).body
        .errcode,
    ).toBe(403);
    const list = await t.post(`${P}/queryMerchantList`, {}, merchantA.token);
    expect(list.body.data.map((m: { id: number }) => m.id)).toEqual([merchantA.merchantId]);
    const shopList = await t.post(`${P}/queryMerchantPage`, {}, shopA.token);
    expect(shopList.body.data).toEqual({
      list: [expect.objectContaining({ id: merchantA.merchantId, contactName: 'Mr Li' })],
      total: 1,
    });
    expect((await t.post(`${P}/getMerchant`, { id: 999_999_999 }, platform.token)).body).toEqual({
      errcode: 404,
      errmsg: 'merchant not found',
    });
  });

  it("disabling a merchant ends its staff's and verifiers' sessions and refuses their logins until enabled again", async () => {
    const merchantId = await createMerchant(t.db);
    const user = await staffSession(t, { kind: 'merchant', merchantId, permissions: ALL });
    const shopUser = await staffSession(t, { kind: 'shop', merchantId, permissions: ALL });
    const checker = await createChecker(t.db, { merchant_id: merchantId });
    const checkerLogin = () =>
      t.post('/app-api/auth/checkerLogin', { mobile: checker.mobile, password: checker.password });
    const app = await checkerLogin();
    expect(app.body.errcode).toBe(0);
    const appToken = app.body.data.accessToken;
    expect((await t.post('/app-api/auth/checkerLogout', {}, appToken)).body.errcode).toBe(0);
    const app2 = (await checkerLogin()).body.data.accessToken;

    expect((await t.post(`${P}/updateMerchantStatus`, { id: merchantId, status: 0 }, platform.token)).body).toEqual({
      errcode: 0,
      errmsg: 'success',
    });
    expect((await t.post(`${P}/getMerchant`, { id: merchantId }, user.token)).body.errcode).toBe(401);
    expect((await t.post(`${P}/getMerchant`, { id: merchantId }, shopUser.token)).body.errcode).toBe(401);
    expect((await t.post('/app-api/auth/checkerLogout', {}, app2)).body.errcode).toBe(401);
    expect((await checkerLogin()).body).toMatchObject({ errcode: 1_002_000_001 });
    const staffLogin = await t.loginStaff(user.username, user.password).catch((e: Error) => e.message);
    expect(staffLogin).toMatch(/disabled/);
    expect((await t.post(`${P}/getMerchant`, { id: merchantId }, platform.token)).body.data.status).toBe(0);

    expect(
      (await t.post(`${P}/updateMerchantStatus`, { id: merchantId, status: 1 }, platform.token)).body.errcode,
    ).toBe(0);
    expect((await checkerLogin()).body.errcode).toBe(0);
    expect((await t.loginStaff(user.username, user.password)).accessToken).toEqual(expect.any(String));
  });

  it('records the writes in the operation log, failures included', async () => {
    const name = uniq('Logged ');
    const m = await addOk({ name, merchantType: 2 });
    await t.post(`${P}/updateMerchant`, { id: m.id, name, remark: 'r' }, platform.token);
    await t.post(`${P}/updateMerchantStatus`, { id: m.id, status: 0 }, platform.token);
    await t.post(`${P}/updateMerchant`, { id: m.id, name: 'x' }, merchantA.token);
    const rows = await t.db
      .selectFrom('operate_log')
      .select(['module', 'action', 'biz_id', 'success', 'errcode', 'account_id'])
      .where('biz_id', '=', String(m.id))
      .where('path', 'like', '/manage-api/merchant/%')
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.action, r.success, Number(r.errcode), r.account_id])).toEqual([
      ['新增商户', true, 0, platform.userId],
      ['修改商户', true, 0, platform.userId],
      ['启用/停用商户', true, 0, platform.userId],
      ['修改商户', false, 403, merchantA.userId],
    ]);
    expect(rows.every((r) => r.module === '商户管理')).toBe(true);
  });
});
