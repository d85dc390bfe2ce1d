import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDept, createMerchant, createShop, uniq } from '../helpers/factories.js';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/** Departments (spec B 2.6, 4.6 addDept; get, list, page, update and delete are ours). */
const P = '/manage-api/system/dept';
const ALL = ['dept:read', 'dept:write'];

let t: TestApp;
let org: { merchantA: number; shopA1: number; shopA2: number; merchantB: number; shopB: number };
let platform: StaffSession;
let merchantA: StaffSession;
let shopA1: StaffSession;
let merchantB: StaffSession;
let merchantAName: string;
/** sets up merchants, staff and sales institutions through their own operations */
let ops: StaffSession;

beforeAll(async () => {
  t = await createTestApp();
  merchantAName = `Lakeside Group ${uniq()}`;
  const merchantAId = await createMerchant(t.db, { name: merchantAName });
  const merchantBId = await createMerchant(t.db);
  org = {
    merchantA: merchantAId,
    shopA1: await createShop(t.db, { merchant_id: merchantAId, name: `North Gate ${uniq()}` }),
    shopA2: await createShop(t.db, { merchant_id: merchantAId }),
    merchantB: merchantBId,
    shopB: await createShop(t.db, { merchant_id: merchantBId }),
  };
  platform = await staffSession(t, { kind: 'platform', permissions: ALL });
  merchantA = await staffSession(t, { kind: 'merchant', merchantId: org.merchantA, permissions: ALL });
  shopA1 = await staffSession(t, { kind: 'shop', shopId: org.shopA1, permissions: ALL });
  merchantB = await staffSession(t, { kind: 'merchant', merchantId: org.merchantB, permissions: ALL });
  ops = await staffSession(t, { kind: 'platform', permissions: ['merchant:write', 'staff:write', 'sales:write'] });
});
const succeeds = async (path: string, body: object) => {
  const res = await t.post(`/manage-api${path}`, body, ops.token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data;
};
afterAll(() => t?.close());

type DeptOut = {
  id: number;
  merchantId: number | null;
  merchantName: string | null;
  shopId: number | null;
  shopName: string | null;
  name: string;
  parentId: number;
  sort: number;
  leaderUserId: number | null;
  phone: string | null;
  email: string | null;
  isEnabled: boolean;
};

const add = (who: StaffSession, body: Record<string, unknown>) => t.post(`${P}/addDept`, body, who.token);
async function addOk(who: StaffSession, body: Record<string, unknown>): Promise<DeptOut> {
  const res = await add(who, { sort: 0, parentId: 0, ...body });
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data;
}
const update = (who: StaffSession, body: Record<string, unknown>) => t.post(`${P}/updateDept`, body, who.token);
const get = async (id: number) => (await t.post(`${P}/getDept`, { id }, platform.token)).body.data as DeptOut;

describe('rejection matrix', () => {
  const valid = () => ({ name: uniq('Dept '), parentId: 0, sort: 1, merchantId: org.merchantA });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/addDept`,
    permission: 'dept:write',
    validBody: valid,
    badInputs: [
      { body: () => ({ parentId: 0, sort: 1 }), field: 'name', rule: /name is required/ },
      { body: () => ({ name: 'x', sort: 1 }), field: 'parentId', rule: /parentId is required/ },
      { body: () => ({ name: 'x', parentId: 0 }), field: 'sort', rule: /sort is required/ },
      { body: () => ({ ...valid(), parentId: -1 }), field: 'parentId' },
      { body: () => ({ ...valid(), email: 'not-an-email' }), field: 'email' },
      { body: () => ({ ...valid(), phone: 'ring ring' }), field: 'phone' },
      { body: () => ({ ...valid(), name: 'x'.repeat(65) }), field: 'name' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/updateDept`,
    permission: 'dept:write',
    validBody: () => ({ id: 1, name: 'x', parentId: 0, sort: 0 }),
    badInputs: [
      { body: () => ({ name: 'x', parentId: 0, sort: 0 }), field: 'id', rule: /id is required/ },
      { body: () => ({ id: 1, name: 'x', parentId: 0, sort: 0, isEnabled: 'no' }), field: 'isEnabled' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/deleteDept`,
    permission: 'dept:write',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({}), field: 'id', rule: /id is required/ }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/getDept`,
    permission: 'dept:read',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({ id: 0 }), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/queryDeptList`,
    permission: 'dept:read',
    validBody: () => ({}),
    badInputs: [{ body: () => ({ parentId: 'top' }), field: 'parentId' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/queryDeptPage`,
    permission: 'dept:read',
    validBody: () => ({}),
    badInputs: [{ body: () => ({ pageNum: 2.5 }), field: 'pageNum' }],
  });
});

describe('adding', () => {
  it("adds a top-level department and answers it with its merchant's and shop's names", async () => {
    const top = await addOk(platform, {
      name: ' Operations ',
      sort: 3,
      merchantId: org.merchantA,
      phone: '0571-88886666',
      email: 'ops@example.com',
      tenantId: 7,
    });
    expect(top).toEqual({
      id: expect.any(Number),
      merchantId: org.merchantA,
      merchantName: merchantAName,
      shopId: null,
      shopName: null,
      name: 'Operations',
      parentId: 0,
      sort: 3,
      leaderUserId: null,
      phone: '0571-88886666',
      email: 'ops@example.com',
      isEnabled: true,
    });
    expect(await get(top.id)).toEqual(top);
  });

  it('takes the owner from the caller when none is given, and from the shop when only shopId is', async () => {
    expect(await addOk(merchantA, { name: uniq('M ') })).toMatchObject({ merchantId: org.merchantA, shopId: null });
    expect(await addOk(shopA1, { name: uniq('S ') })).toMatchObject({ merchantId: org.merchantA, shopId: org.shopA1 });
    expect(await addOk(platform, { name: uniq('P '), shopId: org.shopB })).toMatchObject({
      merchantId: org.merchantB,
      shopId: org.shopB,
    });
    expect((await add(platform, { name: "Nobody's", parentId: 0, sort: 0 })).body.errcode).toBe(400);
    expect(
      (await add(platform, { name: 'Mismatch', parentId: 0, sort: 0, merchantId: org.merchantA, shopId: org.shopB }))
        .body,
    ).toEqual({ errcode: 400, errmsg: 'shopId is invalid: the shop belongs to another merchant' });
    expect((await add(platform, { name: 'Ghost', parentId: 0, sort: 0, merchantId: 999_999_999 })).body).toEqual({
      errcode: 404,
      errmsg: 'merchant (merchantId) not found',
    });
    expect((await add(platform, { name: 'Ghost', parentId: 0, sort: 0, shopId: 999_999_999 })).body).toEqual({
      errcode: 404,
      errmsg: 'shop (shopId) not found',
    });
  });

  it("gives platform staff's top-level department to the platform's own merchant when they name no owner", async () => {
    const refused = {
      errcode: 400,
      errmsg: 'merchantId is required for a top-level department (or shopId, whose merchant it takes)',
    };
    expect((await add(platform, { name: uniq('Ops '), parentId: 0, sort: 0 })).body).toEqual(refused);
    const own = await createMerchant(t.db, { merchant_type: 1 });
    let second: number | undefined;
    try {
      expect(await addOk(platform, { name: uniq('Platform ops ') })).toMatchObject({ merchantId: own, shopId: null });
      // Two platform merchants: which one is meant cannot be told, so the owner must be named.
      second = await createMerchant(t.db, { merchant_type: 1 });
      expect((await add(platform, { name: uniq('Ops '), parentId: 0, sort: 0 })).body).toEqual(refused);
    } finally {
      for (const id of [own, second])
        if (id) await succeeds('/merchant/updateMerchant', { id, name: uniq('Former platform '), merchantType: 2 });
    }
  });

  it("refuses an owner outside the caller's merchant or shop with 403", async () => {
    expect((await add(merchantA, { name: 'Theirs', parentId: 0, sort: 0, merchantId: org.merchantB })).body).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another merchant',
    });
    expect((await add(merchantA, { name: 'Theirs', parentId: 0, sort: 0, shopId: org.shopB })).body.errcode).toBe(403);
    expect((await add(shopA1, { name: 'Sibling', parentId: 0, sort: 0, shopId: org.shopA2 })).body).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another shop',
    });
  });

  it('reads the parent first: unknown → 404, foreign → 403, disabled → 409; the child takes its owner', async () => {
    const top = await addOk(merchantA, { name: uniq('Top ') });
    const child = await addOk(merchantA, { name: 'Child', parentId: top.id, sort: 2 });
    expect(child).toMatchObject({ parentId: top.id, merchantId: org.merchantA, shopId: null });
    // A shop's department may hang under its merchant's; the shop's own departments then hold only that shop's.
    const shopDept = await addOk(merchantA, { name: 'North gate team', parentId: top.id, shopId: org.shopA1 });
    expect(shopDept).toMatchObject({ shopId: org.shopA1, merchantId: org.merchantA });
    expect(await addOk(shopA1, { name: 'Ticket desk', parentId: shopDept.id })).toMatchObject({ shopId: org.shopA1 });
    expect(
      (await add(merchantA, { name: 'Wrong shop', parentId: shopDept.id, sort: 0, shopId: org.shopA2 })).body.errcode,
    ).toBe(400);
    expect(
      (await add(merchantA, { name: 'Wrong merchant', parentId: top.id, sort: 0, merchantId: org.merchantB })).body,
    ).toEqual({
      errcode: 400,
      errmsg: "merchantId is invalid: a department belongs to its parent department's merchant",
    });

    expect((await add(merchantA, { name: 'Orphan', parentId: 999_999_999, sort: 0 })).body).toEqual({
      errcode: 404,
      errmsg: 'parent department (parentId) not found',
    });
    expect((await add(merchantB, { name: 'Intruder', parentId: top.id, sort: 0 })).body).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another merchant',
    });
    expect((await add(shopA1, { name: 'Up high', parentId: top.id, sort: 0 })).body).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another shop',
    });

    expect(
      (await update(merchantA, { id: child.id, name: 'Child', parentId: top.id, sort: 2, isEnabled: false })).body
        .errcode,
    ).toBe(0);
    expect((await add(merchantA, { name: 'Under disabled', parentId: child.id, sort: 0 })).body).toEqual({
      errcode: 409,
      errmsg: 'the parent department is disabled: enable it first',
    });
  });

  it('adds nothing under a disabled merchant (1_022_000_001): not at the top, under a shop, or under a department; a move within it is not an add', async () => {
    const name = uniq('Dormant ');
    const merchant = await createMerchant(t.db, { name });
    const shop = await createShop(t.db, { merchant_id: merchant });
    const top = await addOk(platform, { name: uniq('Top '), merchantId: merchant });
    const other = await addOk(platform, { name: uniq('Other '), merchantId: merchant });
    await succeeds('/merchant/updateMerchantStatus', { id: merchant, status: 0 });
    const count = async () =>
      ((await t.post(`${P}/queryDeptList`, { merchantId: merchant }, platform.token)).body.data as DeptOut[]).length;

    const disabled = { errcode: 1_022_000_001, errmsg: `merchant "${name}" is disabled: enable it first` };
    expect((await add(platform, { name: uniq('Sub '), parentId: top.id, sort: 1 })).body).toEqual(disabled);
    expect((await add(platform, { name: uniq('Top '), parentId: 0, sort: 1, merchantId: merchant })).body).toEqual(
      disabled,
    );
    expect((await add(platform, { name: uniq('Shop top '), parentId: 0, sort: 1, shopId: shop })).body).toEqual(
      disabled,
    );
    expect(await count()).toBe(2);
    expect((await update(platform, { id: other.id, name: other.name, parentId: top.id, sort: 0 })).body.errcode).toBe(
      0,
    );

    await succeeds('/merchant/updateMerchantStatus', { id: merchant, status: 1 });
    await addOk(platform, { name: uniq('Sub '), parentId: top.id, sort: 1 });
  });

  it('refuses a sibling of the same name with 409, but not a cousin', async () => {
    const top = await addOk(merchantA, { name: uniq('Top ') });
    const a = await addOk(merchantA, { name: 'Finance', parentId: top.id });
    expect((await add(merchantA, { name: 'Finance', parentId: top.id, sort: 1 })).body).toEqual({
      errcode: 409,
      errmsg: 'a department named "Finance" already exists under that parent',
    });
    await addOk(merchantA, { name: 'Finance', parentId: a.id });
  });

  it("takes a leader only among the department's merchant's staff", async () => {
    const top = await addOk(merchantA, { name: uniq('Led '), leaderUserId: merchantA.userId });
    expect(top.leaderUserId).toBe(merchantA.userId);
    expect(
      (await add(merchantA, { name: uniq('Led '), parentId: 0, sort: 0, leaderUserId: merchantB.userId })).body,
    ).toEqual({ errcode: 404, errmsg: "leader (leaderUserId) among the staff of the department's merchant not found" });
    // leaderUserId 0 clears it on update; absent keeps it.
    await update(merchantA, { id: top.id, name: top.name, parentId: 0, sort: 0 });
    expect((await get(top.id)).leaderUserId).toBe(merchantA.userId);
    await update(merchantA, { id: top.id, name: top.name, parentId: 0, sort: 0, leaderUserId: 0, email: '' });
    expect(await get(top.id)).toMatchObject({ leaderUserId: null, email: null });
  });
});

describe('moving', () => {
  it('moves a department within its merchant and refuses a loop, however deep', async () => {
    const top = await addOk(merchantA, { name: uniq('Chain ') });
    // A chain 300 levels deep: the loop check has no depth limit.
    let parent = top.id;
    const chain: number[] = [];
    for (let i = 0; i < 300; i++) {
      parent = await createDept(t.db, { merchant_id: org.merchantA, parent_id: parent, name: `level ${i}` });
      chain.push(parent);
    }
    const bottom = chain[chain.length - 1];
    const loop = await update(merchantA, { id: top.id, name: top.name, parentId: bottom, sort: 0 });
    expect(loop.body).toEqual({
      errcode: 409,
      errmsg: 'a department cannot move under itself or one of its own sub-departments',
    });
    expect(
      (await update(merchantA, { id: chain[10], name: 'level 10', parentId: chain[10], sort: 0 })).body.errcode,
    ).toBe(409);
    expect((await get(top.id)).parentId).toBe(0);

    // Moving a middle link to the top is fine, and so is its former ancestor moving under it afterwards.
    expect((await update(merchantA, { id: chain[150], name: 'level 150', parentId: 0, sort: 0 })).body.errcode).toBe(0);
    expect((await update(merchantA, { id: top.id, name: top.name, parentId: bottom, sort: 0 })).body.errcode).toBe(0);
    expect((await get(top.id)).parentId).toBe(bottom);
  });

  it('lets only one of two crossing moves commit', async () => {
    const a = await addOk(merchantA, { name: uniq('A ') });
    const b = await addOk(merchantA, { name: uniq('B ') });
    const answers = await Promise.all([
      update(merchantA, { id: a.id, name: a.name, parentId: b.id, sort: 0 }),
      update(merchantA, { id: b.id, name: b.name, parentId: a.id, sort: 0 }),
    ]);
    expect(answers.map((r) => r.body.errcode).sort()).toEqual([0, 409]);
    const [ra, rb] = [await get(a.id), await get(b.id)];
    expect(ra.parentId === b.id && rb.parentId === a.id).toBe(false);
  });

  it('refuses a parent of another merchant (403) or another shop (409)', async () => {
    const mine = await addOk(merchantA, { name: uniq('Mine ') });
    const theirs = await addOk(merchantB, { name: uniq('Theirs ') });
    expect((await update(merchantA, { id: mine.id, name: mine.name, parentId: theirs.id, sort: 0 })).body.errcode).toBe(
      403,
    );
    expect((await update(platform, { id: mine.id, name: mine.name, parentId: theirs.id, sort: 0 })).body.errcode).toBe(
      409,
    );
    const shop2 = await addOk(merchantA, { name: uniq('Shop2 '), shopId: org.shopA2 });
    const shop1 = await addOk(merchantA, { name: uniq('Shop1 '), shopId: org.shopA1 });
    expect(
      (await update(merchantA, { id: shop1.id, name: shop1.name, parentId: shop2.id, sort: 0 })).body.errcode,
    ).toBe(409);
    // A merchant-level department cannot go under a shop's.
    expect((await update(merchantA, { id: mine.id, name: mine.name, parentId: shop1.id, sort: 0 })).body.errcode).toBe(
      409,
    );
    expect((await update(merchantA, { id: shop1.id, name: shop1.name, parentId: mine.id, sort: 0 })).body.errcode).toBe(
      0,
    );
  });
});

describe('deleting', () => {
  it('refuses while sub-departments, staff or sales institutions refer to it, naming them', async () => {
    const top = await addOk(merchantA, { name: uniq('Busy ') });
    const child = await addOk(merchantA, { name: 'Sub', parentId: top.id });
    const staff = await staffSession(t, { kind: 'merchant', merchantId: org.merchantA });
    await succeeds('/system/user/updateUser', { id: staff.userId, deptId: top.id });
    const sales = await succeeds('/sales/addSales', { name: 'Desk', deptId: top.id });
    const refused = await t.post(`${P}/deleteDept`, { id: top.id }, merchantA.token);
    expect(refused.body).toEqual({
      errcode: 409,
      errmsg: `the department is still referenced by 1 sub-department (id ${child.id}), 1 staff user (id ${staff.userId}) and 1 sales institution (id ${sales.id}): remove or move those first`,
    });
    await succeeds('/sales/deleteSales', { id: sales.id });
    await succeeds('/system/user/deleteUser', { id: staff.userId });
    expect((await t.post(`${P}/deleteDept`, { id: top.id }, merchantA.token)).body.errmsg).toMatch(/1 sub-department/);
    expect((await t.post(`${P}/deleteDept`, { id: child.id }, merchantA.token)).body.errcode).toBe(0);
    expect((await t.post(`${P}/deleteDept`, { id: top.id }, merchantA.token)).body.errcode).toBe(0);
    expect((await t.post(`${P}/getDept`, { id: top.id }, merchantA.token)).body).toEqual({
      errcode: 404,
      errmsg: 'department not found',
    });
    expect((await t.post(`${P}/deleteDept`, { id: top.id }, merchantA.token)).body.errcode).toBe(404);
  });
});

describe('scoping and lists', () => {
  it("refuses another merchant's or shop's department with 403 on every operation", async () => {
    const theirs = await addOk(merchantB, { name: uniq('B ') });
    const refused = { errcode: 403, errmsg: 'the record belongs to another merchant' };
    expect((await t.post(`${P}/getDept`, { id: theirs.id }, merchantA.token)).body).toEqual(refused);
    expect((await update(merchantA, { id: theirs.id, name: 'Taken', parentId: 0, sort: 0 })).body).toEqual(refused);
    expect((await t.post(`${P}/deleteDept`, { id: theirs.id }, merchantA.token)).body).toEqual(refused);
    const a2 = await addOk(merchantA, { name: uniq('A2 '), shopId: org.shopA2 });
    expect((await t.post(`${P}/getDept`, { id: a2.id }, shopA1.token)).body).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another shop',
    });
  });

  it('lists and pages what the caller may see, siblings in their sort order', async () => {
    const tag = uniq('list');
    const top = await addOk(merchantA, { name: `${tag} top` });
    const second = await addOk(merchantA, { name: `${tag} b`, parentId: top.id, sort: 2 });
    const first = await addOk(merchantA, { name: `${tag} a`, parentId: top.id, sort: 1 });
    const shopDept = await addOk(shopA1, { name: `${tag} shop` });
    const theirs = await addOk(merchantB, { name: `${tag} theirs` });
    const ids = async (who: StaffSession, f: object = {}) =>
      ((await t.post(`${P}/queryDeptList`, { keywords: tag, ...f }, who.token)).body.data as DeptOut[]).map(
        (d) => d.id,
      );
    // Top-level departments first (parentId 0), then each parent's children in their sort order.
    expect(await ids(platform)).toEqual([top.id, shopDept.id, theirs.id, first.id, second.id]);
    expect(await ids(merchantA, { parentId: top.id })).toEqual([first.id, second.id]);
    expect(await ids(shopA1)).toEqual([shopDept.id]);
    expect(await ids(merchantB)).toEqual([theirs.id]);
    expect(await ids(platform, { merchantId: org.merchantA, isEnabled: true, name: 'TOP' })).toEqual([top.id]);
    expect(await ids(platform, { shopId: org.shopA1 })).toEqual([shopDept.id]);
    const page = await t.post(`${P}/queryDeptPage`, { keywords: tag, pageSize: 2, pageNum: 2 }, merchantA.token);
    expect(page.body.data.total).toBe(4);
    expect(page.body.data.list.map((d: DeptOut) => d.id)).toEqual([first.id, second.id]);
  });
});

describe('operation log', () => {
  it('records add, update and delete with the department id', async () => {
    const d = await addOk(merchantA, { name: uniq('Logged ') });
    await update(merchantA, { id: d.id, name: d.name, parentId: 0, sort: 5 });
    await update(merchantA, { id: d.id, name: d.name, parentId: d.id, sort: 5 });
    await t.post(`${P}/deleteDept`, { id: d.id }, merchantA.token);
    // only the database shows the operation log
    const rows = await t.db
      .selectFrom('operate_log')
      .select(['module', 'action', 'success', 'errcode'])
      .where('account_id', '=', merchantA.userId)
      .where('biz_id', '=', String(d.id))
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.module, r.action, r.success, Number(r.errcode)])).toEqual([
      ['部门管理', '新增部门', true, 0],
      ['部门管理', '修改部门', true, 0],
      ['部门管理', '修改部门', false, 409],
      ['部门管理', '删除部门', true, 0],
    ]);
  });
});
