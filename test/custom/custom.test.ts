import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, createShop, randomMobile, uniq } from '../helpers/factories.js';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/** Custom distributors and their users on channel M (spec A 4.6); batchAdd has its own file. */
const P = '/manage-api/custom';
const ALL = ['custom:read', 'custom:write'];

let t: TestApp;
let merchantAId: number;
let shopA1Id: number;
let platform: StaffSession;
let merchantA: StaffSession;
let shopA1: StaffSession;
let merchantB: StaffSession;
/** enables merchants again through their own operation */
let ops: StaffSession;

beforeAll(async () => {
  t = await createTestApp();
  merchantAId = await createMerchant(t.db);
  shopA1Id = await createShop(t.db, { merchant_id: merchantAId });
  platform = await staffSession(t, { kind: 'platform', permissions: ALL });
  merchantA = await staffSession(t, { kind: 'merchant', merchantId: merchantAId, permissions: ALL });
  shopA1 = await staffSession(t, { kind: 'shop', shopId: shopA1Id, permissions: ALL });
  merchantB = await staffSession(t, { kind: 'merchant', permissions: ALL });
  ops = await staffSession(t, { kind: 'platform', permissions: ['merchant:write'] });
});
const enableMerchant = async (id: number) =>
  expect((await t.post('/manage-api/merchant/updateMerchantStatus', { id, status: 1 }, ops.token)).body).toEqual({
    errcode: 0,
    errmsg: 'success',
  });
// Written directly: updateMerchantStatus ends the merchant's sessions, and these tests need a request of its
// staff that got past that check, to see the write itself refuse it.
const disableMerchantKeepingSessions = (id: number) =>
  t.db.updateTable('merchant').set({ status: 0 }).where('id', '=', id).execute();
afterAll(() => t?.close());

type Dis = {
  id: number;
  merchantId: number | null;
  shopId: number | null;
  name: string;
  contact: string | null;
  phone: string | null;
  remark: string | null;
  status: number;
  createdTime: string;
  updatedTime: string;
};
type User = {
  id: number;
  customDisId: number | null;
  customDisName: string | null;
  merchantId: number | null;
  shopId: number | null;
  name: string | null;
  mobile: string | null;
  remark: string | null;
  status: number;
};

async function addDis(who: StaffSession, body: Record<string, unknown> = {}): Promise<Dis> {
  const res = await t.post(`${P}/addCustomDis`, { name: uniq('Travel agency '), ...body }, who.token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data;
}
async function addUser(who: StaffSession, body: Record<string, unknown>): Promise<User> {
  const res = await t.post(`${P}/addCustomDisUser`, { name: 'Guide Wang', mobile: randomMobile(), ...body }, who.token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data;
}
const dis = async (id: number) =>
  ((await t.post(`${P}/queryCustomDisList`, { idList: [id] }, platform.token)).body.data as Dis[])[0];
const user = async (id: number) =>
  ((await t.post(`${P}/queryCustomDisUserList`, { idList: [id] }, platform.token)).body.data as User[])[0];

describe('rejection matrix', () => {
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/addCustomDis`,
    permission: 'custom:write',
    validBody: () => ({ name: uniq('D ') }),
    // Nothing is required (spec A 2.8 `{name}`): `{}` is added below ("the spec's smallest requests").
    badInputs: [
      { body: () => ({ name: 'x', contact: 'c'.repeat(65) }), field: 'contact' },
      { body: () => ({ name: 'x'.repeat(65) }), field: 'name' },
      { body: () => ({ name: 'x', phone: 'ring' }), field: 'phone' },
      { body: () => ({ name: 'x', status: 2 }), field: 'status', rule: /between 0 and 1/ },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/updateCustomDis`,
    permission: 'custom:write',
    validBody: () => ({ id: 1 }),
    badInputs: [
      { body: () => ({ name: 'x' }), field: 'id', rule: /id is required/ },
      { body: () => ({ id: 1, status: -1 }), field: 'status' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/queryCustomDisList`,
    permission: 'custom:read',
    validBody: () => ({}),
    badInputs: [{ body: () => ({ keywords: 'x'.repeat(65) }), field: 'keywords' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/queryCustomDisPage`,
    permission: 'custom:read',
    validBody: () => ({}),
    badInputs: [{ body: () => ({ status: 3 }), field: 'status' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/addCustomDisUser`,
    permission: 'custom:write',
    validBody: () => ({ customDisId: 1, name: 'x', mobile: randomMobile() }),
    badInputs: [
      { body: () => ({ customDisId: 0, name: 'x' }), field: 'customDisId' },
      { body: () => ({ customDisId: 1, name: 'x'.repeat(65) }), field: 'name' },
      { body: () => ({ customDisId: 1, name: 'x', mobile: '12345678901' }), field: 'mobile' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/updateCustomDisUser`,
    permission: 'custom:write',
    validBody: () => ({ id: 1 }),
    badInputs: [
      { body: () => ({}), field: 'id' },
      { body: () => ({ id: 1, mobile: '999' }), field: 'mobile' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/queryCustomDisUserList`,
    permission: 'custom:read',
    validBody: () => ({}),
    badInputs: [{ body: () => ({ customDisId: 'all' }), field: 'customDisId' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/queryCustomDisUserPage`,
    permission: 'custom:read',
    validBody: () => ({}),
    badInputs: [{ body: () => ({ keywords: 'x'.repeat(65) }), field: 'keywords' }],
  });
});

describe('distributors', () => {
  it("adds a distributor of the caller's merchant and shop, answering the whole record", async () => {
    const d = await addDis(shopA1, {
      name: ' Sunny Travel ',
      contact: 'Ms Li',
      phone: '0571-88886666',
      remark: 'since 2020',
    });
    expect(d).toEqual({
      id: expect.any(Number),
      merchantId: merchantAId,
      shopId: shopA1Id,
      name: 'Sunny Travel',
      contact: 'Ms Li',
      phone: '0571-88886666',
      remark: 'since 2020',
      status: 1,
      createdTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      updatedTime: expect.any(String),
    });
    expect(await addDis(platform)).toMatchObject({ merchantId: null, shopId: null });
  });

  it('refuses a second distributor of the same name in one merchant, not in another', async () => {
    const name = uniq('Twin ');
    await addDis(merchantA, { name });
    expect((await t.post(`${P}/addCustomDis`, { name }, shopA1.token)).body).toEqual({
      errcode: 409,
      errmsg: `a custom distributor named "${name}" already exists`,
    });
    await addDis(merchantB, { name });
  });

  it('changes only the given fields, clears with "", and disables', async () => {
    const d = await addDis(merchantA, { contact: 'Mr Zhao', remark: 'old' });
    expect((await t.post(`${P}/updateCustomDis`, { id: d.id, remark: '', status: 0 }, merchantA.token)).body).toEqual({
      errcode: 0,
      errmsg: 'success',
    });
    expect(await dis(d.id)).toMatchObject({ name: d.name, contact: 'Mr Zhao', remark: null, status: 0 });
    expect((await t.post(`${P}/updateCustomDis`, { id: 999_999_999, status: 1 }, merchantA.token)).body).toEqual({
      errcode: 404,
      errmsg: 'custom distributor not found',
    });
    expect((await t.post(`${P}/updateCustomDis`, { id: d.id, name: '   ' }, merchantA.token)).body).toEqual({
      errcode: 400,
      errmsg: 'name is invalid: must not be blank',
    });
  });

  it("refuses another merchant's or shop's distributor with 403 and lists only the caller's", async () => {
    const tag = uniq('scope');
    const a = await addDis(merchantA, { name: `${tag} A` });
    const a1 = await addDis(shopA1, { name: `${tag} A1` });
    const b = await addDis(merchantB, { name: `${tag} B` });
    expect((await t.post(`${P}/updateCustomDis`, { id: b.id, status: 0 }, merchantA.token)).body).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another merchant',
    });
    expect((await t.post(`${P}/updateCustomDis`, { id: a.id, status: 0 }, shopA1.token)).body).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another shop',
    });
    const ids = async (who: StaffSession, f: object = {}) =>
      ((await t.post(`${P}/queryCustomDisList`, { keywords: tag, ...f }, who.token)).body.data as Dis[]).map(
        (x) => x.id,
      );
    expect(await ids(platform)).toEqual([b.id, a1.id, a.id]);
    expect(await ids(merchantA)).toEqual([a1.id, a.id]);
    expect(await ids(shopA1)).toEqual([a1.id]);
    await t.post(`${P}/updateCustomDis`, { id: a.id, status: 0 }, merchantA.token);
    expect(await ids(merchantA, { status: 0 })).toEqual([a.id]);
    const page = await t.post(`${P}/queryCustomDisPage`, { keywords: tag, pageSize: 1, pageNum: 3 }, platform.token);
    expect(page.body.data).toEqual({ list: [expect.objectContaining({ id: a.id })], total: 3 });
  });
});

describe('distributor users', () => {
  it('adds a user to a distributor, carrying its owners', async () => {
    const d = await addDis(shopA1);
    const mobile = randomMobile();
    const u = await addUser(merchantA, { customDisId: d.id, name: ' Guide Li ', mobile, remark: 'senior' });
    expect(u).toEqual({
      id: expect.any(Number),
      customDisId: d.id,
      customDisName: d.name,
      merchantId: merchantAId,
      shopId: shopA1Id,
      name: 'Guide Li',
      mobile,
      remark: 'senior',
      status: 1,
      createdTime: expect.any(String),
      updatedTime: expect.any(String),
    });
  });

  it('refuses an unknown (404), foreign (403) or disabled (409) distributor and a mobile it already has (409)', async () => {
    const d = await addDis(merchantA);
    const theirs = await addDis(merchantB);
    const add = (who: StaffSession, body: object) =>
      t.post(`${P}/addCustomDisUser`, { name: 'x', mobile: randomMobile(), ...body }, who.token).then((r) => r.body);
    expect(await add(merchantA, { customDisId: 999_999_999 })).toEqual({
      errcode: 404,
      errmsg: 'custom distributor (customDisId) not found',
    });
    expect(await add(merchantA, { customDisId: theirs.id })).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another merchant',
    });
    const mobile = randomMobile();
    await addUser(merchantA, { customDisId: d.id, mobile });
    expect(await add(merchantA, { customDisId: d.id, mobile })).toEqual({
      errcode: 409,
      errmsg: `mobile ${mobile} is already a user of this distributor`,
    });
    // The same person may work for another distributor.
    await addUser(merchantA, { customDisId: (await addDis(merchantA)).id, mobile });
    await t.post(`${P}/updateCustomDis`, { id: d.id, status: 0 }, merchantA.token);
    expect(await add(merchantA, { customDisId: d.id })).toEqual({
      errcode: 409,
      errmsg: 'the custom distributor is disabled: enable it before adding users to it',
    });
  });

  it('adds nothing under a disabled merchant (1_022_000_001): no distributor, no user, no user moved in; and does once it is enabled again', async () => {
    const name = uniq('Merchant C ');
    const merchantC = await createMerchant(t.db, { name });
    const staffC = await staffSession(t, { kind: 'merchant', merchantId: merchantC, permissions: ALL });
    const dC = await addDis(staffC);
    const ours = await addDis(platform);
    const mover = await addUser(platform, { customDisId: ours.id });
    await disableMerchantKeepingSessions(merchantC);

    const disabled = { errcode: 1_022_000_001, errmsg: `merchant "${name}" is disabled: enable it first` };
    const userCount = async () =>
      ((await t.post(`${P}/queryCustomDisUserList`, { customDisId: dC.id }, platform.token)).body.data as User[])
        .length;
    expect(
      (
        await t.post(
          `${P}/addCustomDisUser`,
          { customDisId: dC.id, name: '张三', mobile: randomMobile() },
          platform.token,
        )
      ).body,
    ).toEqual(disabled);
    expect(
      (await t.post(`${P}/updateCustomDisUser`, { id: mover.id, customDisId: dC.id }, platform.token)).body,
    ).toEqual(disabled);
    expect(await userCount()).toBe(0);
    expect(await user(mover.id)).toMatchObject({ customDisId: ours.id });
    // Disabling through the API ends the merchant's sessions; a request already past that check is refused here.
    const disName = uniq('Late agency ');
    expect((await t.post(`${P}/addCustomDis`, { name: disName }, staffC.token)).body).toEqual(disabled);
    expect((await t.post(`${P}/queryCustomDisList`, { keywords: disName }, platform.token)).body.data).toEqual([]);
    // Records already there are still edited.
    expect(
      (await t.post(`${P}/updateCustomDis`, { id: dC.id, remark: 'closed for now' }, platform.token)).body.errcode,
    ).toBe(0);

    await enableMerchant(merchantC);
    await addUser(platform, { customDisId: dC.id });
    expect(
      (await t.post(`${P}/updateCustomDisUser`, { id: mover.id, customDisId: dC.id }, platform.token)).body.errcode,
    ).toBe(0);
    await addDis(staffC);
  });

  it('changes the given fields, moves a user to another distributor of the caller, and keeps mobiles unique', async () => {
    const d1 = await addDis(merchantA);
    const d2 = await addDis(shopA1);
    const u = await addUser(merchantA, { customDisId: d1.id, remark: 'r' });
    const other = await addUser(merchantA, { customDisId: d2.id });
    expect(
      (await t.post(`${P}/updateCustomDisUser`, { id: u.id, name: 'Renamed', remark: '', status: 0 }, merchantA.token))
        .body.errcode,
    ).toBe(0);
    expect(await user(u.id)).toMatchObject({
      name: 'Renamed',
      remark: null,
      status: 0,
      mobile: u.mobile,
      customDisId: d1.id,
    });
    expect(
      (
        await t.post(
          `${P}/updateCustomDisUser`,
          { id: u.id, customDisId: d2.id, mobile: other.mobile },
          merchantA.token,
        )
      ).body,
    ).toEqual({ errcode: 409, errmsg: `mobile ${other.mobile} is already a user of this distributor` });
    expect(
      (await t.post(`${P}/updateCustomDisUser`, { id: u.id, customDisId: d2.id }, merchantA.token)).body.errcode,
    ).toBe(0);
    expect(await user(u.id)).toMatchObject({ customDisId: d2.id, customDisName: d2.name, shopId: shopA1Id });
    const theirs = await addDis(merchantB);
    expect(
      (await t.post(`${P}/updateCustomDisUser`, { id: u.id, customDisId: theirs.id }, merchantA.token)).body.errcode,
    ).toBe(403);
    expect((await t.post(`${P}/updateCustomDisUser`, { id: u.id, name: 'x' }, merchantB.token)).body).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another merchant',
    });
    expect((await t.post(`${P}/updateCustomDisUser`, { id: 999_999_999, name: 'x' }, merchantA.token)).body).toEqual({
      errcode: 404,
      errmsg: 'custom distributor user not found',
    });
  });

  it("lists and pages users by distributor, keywords and status, within the caller's scope", async () => {
    const d = await addDis(merchantA);
    const d1 = await addDis(shopA1);
    const u1 = await addUser(merchantA, { customDisId: d.id, name: 'Zhang San' });
    const u2 = await addUser(merchantA, { customDisId: d.id, name: 'Li Si', status: 0 });
    const u3 = await addUser(shopA1, { customDisId: d1.id, name: 'Wang Wu' });
    const ids = async (who: StaffSession, f: object) =>
      ((await t.post(`${P}/queryCustomDisUserList`, f, who.token)).body.data as User[]).map((x) => x.id);
    expect(await ids(merchantA, { customDisId: d.id })).toEqual([u2.id, u1.id]);
    expect(await ids(merchantA, { customDisId: d.id, status: 1 })).toEqual([u1.id]);
    expect(await ids(merchantA, { keywords: u3.mobile })).toEqual([u3.id]);
    expect(await ids(shopA1, { idList: [u1.id, u2.id, u3.id] })).toEqual([u3.id]);
    expect(await ids(merchantB, { idList: [u1.id, u2.id, u3.id] })).toEqual([]);
    const page = await t.post(`${P}/queryCustomDisUserPage`, { customDisId: d.id, pageSize: 1 }, merchantA.token);
    expect(page.body.data).toEqual({ list: [expect.objectContaining({ id: u2.id, name: 'Li Si' })], total: 2 });
  });

  it('logs every write with its record id', async () => {
    // only the database shows the operation log
    const { max } = await t.db
      .selectFrom('operate_log')
      .select((eb) => eb.fn.max('id').as('max'))
      .executeTakeFirstOrThrow();
    const d = await addDis(merchantA);
    await t.post(`${P}/updateCustomDis`, { id: d.id, remark: 'x' }, merchantA.token);
    const u = await addUser(merchantA, { customDisId: d.id });
    await t.post(`${P}/updateCustomDisUser`, { id: u.id, remark: 'x' }, merchantA.token);
    const rows = await t.db
      .selectFrom('operate_log')
      .select(['module', 'action', 'biz_id', 'success'])
      .where('account_id', '=', merchantA.userId)
      .where('id', '>', Number(max ?? 0))
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.action, r.biz_id])).toEqual([
      ['新增分销商', String(d.id)],
      ['修改分销商', String(d.id)],
      ['新增分销商用户', String(u.id)],
      ['修改分销商用户', String(u.id)],
    ]);
    expect(rows.every((r) => r.module === '分销商' && r.success)).toBe(true);
  });
});

/** Spec A 2.8 / A 4.6: the add requests are `{name String}` with nothing starred, the updates `{id Long}`. */
describe("the spec's smallest requests", () => {
  // only the database shows every column of a row (the authors among them) and the operation log
  const row = (table: 'custom_dis' | 'custom_dis_user', id: number) =>
    t.db.selectFrom(table).selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const lastLog = async (who: StaffSession) =>
    t.db
      .selectFrom('operate_log')
      .select(['module', 'action', 'biz_id', 'success'])
      .where('account_id', '=', who.userId)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();

  it('addCustomDis takes {name} and {}: a distributor of the caller, unnamed until named (names stay unique once given)', async () => {
    const name = uniq('Spec agency ');
    const named = await addDis(shopA1, { name });
    expect(named).toMatchObject({
      name,
      merchantId: merchantAId,
      shopId: shopA1Id,
      status: 1,
      contact: null,
      phone: null,
      remark: null,
    });
    const unnamed = (await t.post(`${P}/addCustomDis`, {}, merchantA.token)).body;
    expect(unnamed).toMatchObject({
      errcode: 0,
      data: { name: null, merchantId: merchantAId, shopId: null, status: 1 },
    });
    expect(await lastLog(merchantA)).toEqual({
      module: '分销商',
      action: '新增分销商',
      biz_id: String(unnamed.data.id),
      success: true,
    });
    // Unnamed ones clash with nothing; platform staff add the platform's own.
    expect((await t.post(`${P}/addCustomDis`, {}, merchantA.token)).body.errcode).toBe(0);
    expect((await t.post(`${P}/addCustomDis`, { name: '  ' }, platform.token)).body).toMatchObject({
      errcode: 0,
      data: { name: null, merchantId: null, shopId: null },
    });
    expect((await t.post(`${P}/addCustomDis`, { name: '' }, platform.token)).body).toMatchObject({
      errcode: 0,
      data: { name: null },
    });
    // Named later through an update; the name's uniqueness holds then.
    expect((await t.post(`${P}/updateCustomDis`, { id: unnamed.data.id, name }, merchantA.token)).body).toEqual({
      errcode: 409,
      errmsg: `a custom distributor named "${name}" already exists`,
    });
    expect(
      (await t.post(`${P}/updateCustomDis`, { id: unnamed.data.id, name: `${name} 2` }, merchantA.token)).body.errcode,
    ).toBe(0);
    expect(await dis(unnamed.data.id)).toMatchObject({ name: `${name} 2` });
  });

  it('updateCustomDis and updateCustomDisUser take {id} alone: nothing changes, errcode 0, logged', async () => {
    const d = await addDis(merchantA, { contact: 'Ms Qian', remark: 'kept' });
    const u = await addUser(merchantA, { customDisId: d.id, remark: 'kept too' });
    const before = { d: await row('custom_dis', d.id), u: await row('custom_dis_user', u.id) };
    expect((await t.post(`${P}/updateCustomDis`, { id: d.id }, merchantA.token)).body).toEqual({
      errcode: 0,
      errmsg: 'success',
    });
    expect(await lastLog(merchantA)).toEqual({
      module: '分销商',
      action: '修改分销商',
      biz_id: String(d.id),
      success: true,
    });
    expect((await t.post(`${P}/updateCustomDisUser`, { id: u.id }, merchantA.token)).body).toEqual({
      errcode: 0,
      errmsg: 'success',
    });
    expect(await lastLog(merchantA)).toEqual({
      module: '分销商',
      action: '修改分销商用户',
      biz_id: String(u.id),
      success: true,
    });
    const after = { d: await row('custom_dis', d.id), u: await row('custom_dis_user', u.id) };
    expect({ ...after.d, updated_at: null }).toEqual({ ...before.d, updated_at: null });
    expect({ ...after.u, updated_at: null }).toEqual({ ...before.u, updated_at: null });
    // An unnamed distributor and a bare user too.
    const bare = (await t.post(`${P}/addCustomDis`, {}, merchantA.token)).body.data;
    expect((await t.post(`${P}/updateCustomDis`, { id: bare.id }, merchantA.token)).body).toEqual({
      errcode: 0,
      errmsg: 'success',
    });
    const bareUser = (await t.post(`${P}/addCustomDisUser`, {}, merchantA.token)).body.data;
    expect((await t.post(`${P}/updateCustomDisUser`, { id: bareUser.id }, merchantA.token)).body).toEqual({
      errcode: 0,
      errmsg: 'success',
    });
    expect(await user(bareUser.id)).toMatchObject({ customDisId: null, name: null, mobile: null });
  });

  it("addCustomDisUser takes {name} and {}: a user of the caller's merchant (or shop) without a distributor or mobile, logged", async () => {
    const byShop = (await t.post(`${P}/addCustomDisUser`, { name: ' Guide Sun ' }, shopA1.token)).body;
    expect(byShop).toEqual({
      errcode: 0,
      errmsg: 'success',
      data: {
        id: expect.any(Number),
        customDisId: null,
        customDisName: null,
        merchantId: merchantAId,
        shopId: shopA1Id,
        name: 'Guide Sun',
        mobile: null,
        remark: null,
        status: 1,
        createdTime: expect.any(String),
        updatedTime: expect.any(String),
      },
    });
    expect(await row('custom_dis_user', byShop.data.id)).toMatchObject({
      custom_dis_id: null,
      mobile: null,
      created_by: shopA1.userId,
    });
    expect(await lastLog(shopA1)).toEqual({
      module: '分销商',
      action: '新增分销商用户',
      biz_id: String(byShop.data.id),
      success: true,
    });
    const empty = (await t.post(`${P}/addCustomDisUser`, {}, merchantA.token)).body;
    expect(empty).toMatchObject({
      errcode: 0,
      data: { customDisId: null, merchantId: merchantAId, shopId: null, name: null, mobile: null, status: 1 },
    });
    expect((await t.post(`${P}/addCustomDisUser`, { name: '', mobile: '' }, platform.token)).body).toMatchObject({
      errcode: 0,
      data: { customDisId: null, merchantId: null, shopId: null, name: null, mobile: null },
    });
    // Without a distributor a mobile is unique nowhere yet: the same one twice is fine.
    const mobile = randomMobile();
    for (let i = 0; i < 2; i++)
      expect((await t.post(`${P}/addCustomDisUser`, { name: 'y', mobile }, merchantA.token)).body.errcode).toBe(0);
  });

  it('scopes the users without a distributor by their merchant and shop', async () => {
    const tag = uniq('Unattached ');
    const ofMerchant = (await t.post(`${P}/addCustomDisUser`, { name: `${tag} m` }, merchantA.token)).body.data as User;
    const ofShop = (await t.post(`${P}/addCustomDisUser`, { name: `${tag} s` }, shopA1.token)).body.data as User;
    const ofB = (await t.post(`${P}/addCustomDisUser`, { name: `${tag} b` }, merchantB.token)).body.data as User;
    const ids = async (who: StaffSession) =>
      ((await t.post(`${P}/queryCustomDisUserList`, { keywords: tag }, who.token)).body.data as User[]).map(
        (x) => x.id,
      );
    expect(await ids(platform)).toEqual([ofB.id, ofShop.id, ofMerchant.id]);
    expect(await ids(merchantA)).toEqual([ofShop.id, ofMerchant.id]);
    expect(await ids(shopA1)).toEqual([ofShop.id]);
    expect(await ids(merchantB)).toEqual([ofB.id]);
    expect((await t.post(`${P}/updateCustomDisUser`, { id: ofMerchant.id, name: 'x' }, merchantB.token)).body).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another merchant',
    });
    expect((await t.post(`${P}/updateCustomDisUser`, { id: ofMerchant.id, name: 'x' }, shopA1.token)).body).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another shop',
    });
    expect(
      (await t.post(`${P}/updateCustomDisUser`, { id: ofShop.id, remark: 'seen by its merchant' }, merchantA.token))
        .body.errcode,
    ).toBe(0);
  });

  it("attaches a user to a distributor later: it takes the distributor's owners, and the distributor's mobiles stay unique", async () => {
    const d = await addDis(shopA1);
    const mobile = randomMobile();
    await addUser(merchantA, { customDisId: d.id, mobile });
    const loose = (await t.post(`${P}/addCustomDisUser`, { name: 'Guide Zhou', mobile }, merchantA.token)).body
      .data as User;
    expect(
      (await t.post(`${P}/updateCustomDisUser`, { id: loose.id, customDisId: d.id }, merchantA.token)).body,
    ).toEqual({ errcode: 409, errmsg: `mobile ${mobile} is already a user of this distributor` });
    // Attached with a mobile of its own, or none.
    expect(
      (await t.post(`${P}/updateCustomDisUser`, { id: loose.id, customDisId: d.id, mobile: '' }, merchantA.token)).body
        .errcode,
    ).toBe(0);
    expect(await user(loose.id)).toMatchObject({
      customDisId: d.id,
      customDisName: d.name,
      merchantId: merchantAId,
      shopId: shopA1Id,
      mobile: null,
    });
    const theirs = await addDis(merchantB);
    const bare = (await t.post(`${P}/addCustomDisUser`, {}, merchantA.token)).body.data as User;
    expect(
      (await t.post(`${P}/updateCustomDisUser`, { id: bare.id, customDisId: theirs.id }, merchantA.token)).body.errcode,
    ).toBe(403);
    // Moved into a platform distributor, a user becomes the platform's own.
    const ours = await addDis(platform);
    expect(
      (await t.post(`${P}/updateCustomDisUser`, { id: bare.id, customDisId: ours.id }, platform.token)).body.errcode,
    ).toBe(0);
    expect(await user(bare.id)).toMatchObject({ customDisId: ours.id, merchantId: null, shopId: null });
  });

  it('adds no user without a distributor under a disabled merchant (1_022_000_001)', async () => {
    const name = uniq('Merchant C ');
    const merchantC = await createMerchant(t.db, { name });
    const staffC = await staffSession(t, { kind: 'merchant', merchantId: merchantC, permissions: ALL });
    await disableMerchantKeepingSessions(merchantC);
    const disabled = { errcode: 1_022_000_001, errmsg: `merchant "${name}" is disabled: enable it first` };
    expect((await t.post(`${P}/addCustomDisUser`, { name: 'x' }, staffC.token)).body).toEqual(disabled);
    expect((await t.post(`${P}/addCustomDis`, {}, staffC.token)).body).toEqual(disabled);
    const all = (await t.post(`${P}/queryCustomDisUserList`, {}, platform.token)).body.data as User[];
    expect(all.filter((u) => u.merchantId === merchantC)).toEqual([]);
  });
});
