import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, createShop, uniq } from '../helpers/factories.js';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const R = '/manage-api/system/role';
const ALL = ['role:read', 'role:write', 'staff:read', 'staff:write'];

let t: TestApp;
let root: StaffSession;
let merchantA: StaffSession;
let shopA1: StaffSession;
let merchantB: StaffSession;
let org: { merchantA: number; shopA1: number; merchantB: number };

beforeAll(async () => {
  t = await createTestApp();
  const merchantAId = await createMerchant(t.db);
  org = {
    merchantA: merchantAId,
    shopA1: await createShop(t.db, { merchant_id: merchantAId }),
    merchantB: await createMerchant(t.db),
  };
  root = await staffSession(t, { kind: 'platform', permissions: ['*'] });
  merchantA = await staffSession(t, {
    kind: 'merchant',
    merchantId: org.merchantA,
    permissions: [...ALL, 'sales:read', 'sales:write'],
  });
  shopA1 = await staffSession(t, { kind: 'shop', shopId: org.shopA1, permissions: [...ALL, 'sales:read'] });
  merchantB = await staffSession(t, { kind: 'merchant', merchantId: org.merchantB, permissions: ALL });
});
afterAll(() => t?.close());

/** The roles of exactly this name, as the platform (which sees every role) pages them. */
async function rolesNamed(name: string): Promise<Array<{ id: number; name: string }>> {
  const res = await t.post('/manage-api/system/role/queryRolePage', { name, pageSize: 200 }, root.token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data.list.filter((r: { name: string }) => r.name === name);
}

type RoleOut = {
  id: number;
  code: string;
  name: string;
  permissions: string[];
  merchantId: number | null;
  shopId: number | null;
  userCount: number;
  status: number;
};

async function addOk(who: StaffSession, body: Record<string, unknown>): Promise<RoleOut> {
  const res = await t.post(`${R}/addRole`, { name: 'Clerk', permissions: ['sales:read'], ...body }, who.token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data;
}

describe('rejection matrix', () => {
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${R}/addRole`,
    permission: 'role:write',
    validBody: () => ({ name: 'x', permissions: [] }),
    badInputs: [
      { body: () => ({ permissions: [] }), field: 'name', rule: /required/ },
      { body: () => ({ name: 'x' }), field: 'permissions', rule: /required/ },
      { body: () => ({ name: 'x', permissions: ['sales'] }), field: 'permissions' },
      {
        body: () => ({ name: 'x', permissions: ['nosuch:thing'] }),
        field: 'permissions',
        rule: /not a permission of this service/,
      },
      { body: () => ({ name: 'x', permissions: [], code: '1bad' }), field: 'code' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${R}/updateRole`,
    permission: 'role:write',
    validBody: () => ({ id: 1, name: 'x', permissions: [] }),
    badInputs: [{ body: () => ({ name: 'x', permissions: [] }), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${R}/updateRoleStatus`,
    permission: 'role:write',
    validBody: () => ({ id: 1, status: 0 }),
    badInputs: [{ body: () => ({ id: 1, status: 3 }), field: 'status' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${R}/deleteRole`,
    permission: 'role:write',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({}), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${R}/getRole`,
    permission: 'role:read',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({}), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${R}/queryRoleList`,
    permission: 'role:read',
    validBody: () => ({}),
    badInputs: [{ body: () => ({ status: 'on' }), field: 'status' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${R}/queryRolePage`,
    permission: 'role:read',
    validBody: () => ({}),
    badInputs: [{ body: () => ({ pageNum: 2.5 }), field: 'pageNum' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: '/manage-api/system/permission/queryPermissionList',
    permission: 'role:read',
    validBody: () => ({}),
  });
});

describe('the permission list', () => {
  it('lists every permission the routes declare, with the operations needing it', async () => {
    const res = await t.post('/manage-api/system/permission/queryPermissionList', {}, merchantA.token);
    const list = res.body.data as Array<{ permission: string; operations: string[] }>;
    const names = list.map((p) => p.permission);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
    for (const p of ['merchant:write', 'staff:write', 'role:read', 'sales:read', 'region:write'])
      expect(names).toContain(p);
    expect(list.find((p) => p.permission === 'sales:write')!.operations).toEqual([
      '/manage-api/sales/addSales',
      '/manage-api/sales/deleteSales',
      '/manage-api/sales/updateSales',
    ]);
    // Every route's permission appears (the routes are the source).
    const routes = t.app.printRoutes({ commonPrefix: false }) as string;
    expect(routes).toContain('/manage-api/system/permission/queryPermissionList');
  });
});

describe('roles', () => {
  it("adds a global role (platform), a merchant's and a shop's, each within the caller's reach", async () => {
    const global = await addOk(root, {
      name: 'Auditor',
      permissions: ['sales:read', 'region:*'],
      code: uniq('audit_'),
    });
    expect(global).toMatchObject({
      merchantId: null,
      shopId: null,
      permissions: ['sales:read', 'region:*'],
      status: 1,
      userCount: 0,
    });
    const own = await addOk(merchantA, { name: 'Sales clerk', permissions: ['sales:read', 'sales:write'] });
    expect(own).toMatchObject({
      merchantId: org.merchantA,
      shopId: null,
      code: expect.stringMatching(/^role_[0-9a-f]{12}$/),
    });
    const shopRole = await addOk(shopA1, { name: 'Gate clerk' });
    expect(shopRole).toMatchObject({ merchantId: org.merchantA, shopId: org.shopA1 });
    const forShop = await addOk(merchantA, { name: 'Shop role', shopId: org.shopA1 });
    expect(forShop).toMatchObject({ merchantId: org.merchantA, shopId: org.shopA1 });
    const byPlatformForB = await addOk(root, { name: 'B role', merchantId: org.merchantB });
    expect(byPlatformForB.merchantId).toBe(org.merchantB);

    const refused = { errcode: 403, errmsg: 'you may only add roles to your own merchant or shop' };
    expect(
      (await t.post(`${R}/addRole`, { name: 'x', permissions: [], merchantId: org.merchantB }, merchantA.token)).body,
    ).toEqual(refused);
    const otherShop = await createShop(t.db, { merchant_id: org.merchantA });
    expect(
      (await t.post(`${R}/addRole`, { name: 'x', permissions: [], shopId: otherShop }, shopA1.token)).body,
    ).toEqual(refused);
  });

  it('refuses permissions the caller does not hold itself, * and module wildcards included', async () => {
    for (const p of ['*', 'region:read', 'sales:*', 'staff:*']) {
      const res = await t.post(`${R}/addRole`, { name: 'Escalation', permissions: ['sales:read', p] }, merchantA.token);
      expect(res.body.errcode, p).toBe(1_022_000_002);
      expect(res.body.errmsg).toContain(p);
    }
    const mine = await addOk(merchantA, { name: 'Mine', permissions: ['sales:read'] });
    const upd = await t.post(
      `${R}/updateRole`,
      { id: mine.id, name: 'Mine', permissions: ['sales:read', 'merchant:write'] },
      merchantA.token,
    );
    expect(upd.body.errcode).toBe(1_022_000_002);
    expect((await addOk(root, { name: 'Everything', permissions: ['*'] })).permissions).toEqual(['*']);
  });

  it('refuses a code in use with 409', async () => {
    const code = uniq('c_');
    await addOk(root, { code });
    expect((await t.post(`${R}/addRole`, { name: 'x', permissions: [], code }, merchantA.token)).body).toEqual({
      errcode: 409,
      errmsg: `role code "${code}" is already taken`,
    });
  });

  it("shows global roles and the caller's own; changes only its own", async () => {
    const tag = uniq('vis');
    const global = await addOk(root, { name: `${tag} global` });
    const a = await addOk(merchantA, { name: `${tag} A` });
    const a1 = await addOk(shopA1, { name: `${tag} A1` });
    const b = await addOk(merchantB, { name: `${tag} B`, permissions: [] });
    const ids = async (who: StaffSession) =>
      ((await t.post(`${R}/queryRoleList`, { name: tag }, who.token)).body.data as RoleOut[]).map((r) => r.id);
    expect(await ids(root)).toEqual([b.id, a1.id, a.id, global.id]);
    expect(await ids(merchantA)).toEqual([a1.id, a.id, global.id]);
    expect(await ids(shopA1)).toEqual([a1.id, a.id, global.id]);
    expect(await ids(merchantB)).toEqual([b.id, global.id]);
    expect((await t.post(`${R}/getRole`, { id: b.id }, merchantA.token)).body).toEqual({
      errcode: 403,
      errmsg: 'the role belongs to another merchant or shop',
    });
    // A foreign role answers 403 on writes too, as getRole does (this asserted 404 before the QA fix).
    expect(
      (await t.post(`${R}/updateRole`, { id: b.id, name: 'x', permissions: [] }, merchantA.token)).body.errcode,
    ).toBe(403);
    expect(
      (await t.post(`${R}/updateRole`, { id: global.id, name: 'x', permissions: [] }, merchantA.token)).body,
    ).toEqual({
      errcode: 403,
      errmsg: 'this role belongs to the platform or another merchant or shop: you may only change your own roles',
    });
    expect((await t.post(`${R}/deleteRole`, { id: a.id }, shopA1.token)).body.errcode).toBe(403);
    const page = await t.post(`${R}/queryRolePage`, { name: tag, pageSize: 2 }, merchantA.token);
    expect(page.body.data).toEqual({
      list: [expect.objectContaining({ id: a1.id }), expect.objectContaining({ id: a.id })],
      total: 3,
    });
  });

  it("answers 403 to every write on another merchant's role, as getRole does, and 404 to an unknown one", async () => {
    const theirs = await addOk(merchantB, { name: uniq('Theirs '), permissions: [] });
    const foreign = { errcode: 403, errmsg: 'the role belongs to another merchant or shop' };
    expect((await t.post(`${R}/getRole`, { id: theirs.id }, merchantA.token)).body).toEqual(foreign);
    expect(
      (await t.post(`${R}/updateRole`, { id: theirs.id, name: 'Mine now', permissions: [] }, merchantA.token)).body,
    ).toEqual(foreign);
    expect((await t.post(`${R}/updateRoleStatus`, { id: theirs.id, status: 0 }, merchantA.token)).body).toEqual(
      foreign,
    );
    expect((await t.post(`${R}/deleteRole`, { id: theirs.id }, merchantA.token)).body).toEqual(foreign);
    expect((await t.post(`${R}/getRole`, { id: theirs.id }, merchantB.token)).body.data).toMatchObject({
      name: theirs.name,
      status: 1,
    });
    for (const [op, body] of [
      ['updateRole', { name: 'x', permissions: [] }],
      ['updateRoleStatus', { status: 0 }],
      ['deleteRole', {}],
    ] as const) {
      expect((await t.post(`${R}/${op}`, { id: 999_999_999, ...body }, merchantA.token)).body, op).toEqual({
        errcode: 404,
        errmsg: 'role not found',
      });
    }
    // Its owner still changes it.
    expect((await t.post(`${R}/updateRoleStatus`, { id: theirs.id, status: 0 }, merchantB.token)).body.errcode).toBe(0);
  });

  it("reserves the system's role codes (shop_admin …) for everyone, the platform included (409)", async () => {
    for (const [who, code] of [
      [merchantA, 'shop_admin'],
      [root, 'shop_admin'],
      [root, 'SHOP_ADMIN'],
      [merchantA, 'super_admin'],
      [root, 'merchant_admin'],
    ] as const) {
      const res = await t.post(`${R}/addRole`, { name: 'Squat', permissions: [], code }, who.token);
      expect(res.body, code).toEqual({
        errcode: 409,
        errmsg: `role code "${code}" is reserved for a role the system creates itself: choose another code`,
      });
    }
    expect(await rolesNamed('Squat')).toEqual([]);
    expect((await addOk(merchantA, { name: 'Near miss', code: uniq('shop_admin_') })).merchantId).toBe(org.merchantA);
  });

  it('adds no role under a disabled merchant (1_022_000_001)', async () => {
    const merchantId = await createMerchant(t.db, { name: uniq('Dormant ') });
    const name = uniq('Dormant role ');
    expect(
      (await t.post('/manage-api/merchant/updateMerchantStatus', { id: merchantId, status: 0 }, root.token)).body
        .errcode,
    ).toBe(0);
    const refused = await t.post(`${R}/addRole`, { name, permissions: [], merchantId }, root.token);
    expect(refused.body).toEqual({
      errcode: 1_022_000_001,
      errmsg: expect.stringMatching(/^merchant ".+" is disabled: enable it first$/),
    });
    const shopId = await createShop(t.db, { merchant_id: merchantId });
    expect((await t.post(`${R}/addRole`, { name, permissions: [], shopId }, root.token)).body.errcode).toBe(
      1_022_000_001,
    );
    expect(await rolesNamed(name)).toEqual([]);
    expect(
      (await t.post('/manage-api/merchant/updateMerchantStatus', { id: merchantId, status: 1 }, root.token)).body
        .errcode,
    ).toBe(0);
    expect((await addOk(root, { name, permissions: [], merchantId })).merchantId).toBe(merchantId);
  });

  it("a change of a role's permissions or status ends its holders' sessions at once", async () => {
    const r = await addOk(merchantA, { name: 'Reader', permissions: ['sales:read'] });
    const u = (
      await t.post(
        '/manage-api/system/user/addUser',
        { username: uniq('h'), userType: 2, roleIds: [r.id] },
        merchantA.token,
      )
    ).body.data;
    const s1 = await t.loginStaff(u.username, u.password);
    expect((await t.post('/manage-api/sales/querySalesList', {}, s1.accessToken)).body.errcode).toBe(0);
    // A rename alone changes no grant: the session lives on.
    expect(
      (await t.post(`${R}/updateRole`, { id: r.id, name: 'Reader 2', permissions: ['sales:read'] }, merchantA.token))
        .body.errcode,
    ).toBe(0);
    expect((await t.post('/manage-api/sales/querySalesList', {}, s1.accessToken)).body.errcode).toBe(0);
    expect(
      (
        await t.post(
          `${R}/updateRole`,
          { id: r.id, name: 'Reader 2', permissions: ['sales:read', 'sales:write'] },
          merchantA.token,
        )
      ).body.errcode,
    ).toBe(0);
    expect((await t.post('/manage-api/sales/querySalesList', {}, s1.accessToken)).body.errcode).toBe(401);
    const s2 = await t.loginStaff(u.username, u.password);
    expect((await t.post(`${R}/updateRoleStatus`, { id: r.id, status: 0 }, merchantA.token)).body.errcode).toBe(0);
    expect((await t.post('/manage-api/sales/querySalesList', {}, s2.accessToken)).body.errcode).toBe(401);
    const s3 = await t.loginStaff(u.username, u.password);
    expect((await t.post('/manage-api/sales/querySalesList', {}, s3.accessToken)).body.errcode).toBe(403);
    expect((await t.post(`${R}/getRole`, { id: r.id }, merchantA.token)).body.data).toMatchObject({
      status: 0,
      userCount: 1,
      name: 'Reader 2',
    });
  });

  it('deletes a role only once no living user holds it', async () => {
    const r = await addOk(merchantA, { name: 'Temp' });
    const u = (
      await t.post(
        '/manage-api/system/user/addUser',
        { username: uniq('h'), userType: 2, roleIds: [r.id] },
        merchantA.token,
      )
    ).body.data;
    expect((await t.post(`${R}/deleteRole`, { id: r.id }, merchantA.token)).body).toEqual({
      errcode: 409,
      errmsg: 'the role is held by 1 user(s): take it from them first',
    });
    expect((await t.post('/manage-api/system/user/deleteUser', { id: u.id }, merchantA.token)).body.errcode).toBe(0);
    expect((await t.post(`${R}/deleteRole`, { id: r.id }, merchantA.token)).body.errcode).toBe(0);
    expect((await t.post(`${R}/getRole`, { id: r.id }, merchantA.token)).body.errcode).toBe(404);
  });

  it('records its writes in the operation log', async () => {
    const r = await addOk(merchantA, { name: 'Logged' });
    await t.post(`${R}/updateRole`, { id: r.id, name: 'Logged 2', permissions: [] }, merchantA.token);
    await t.post(`${R}/updateRoleStatus`, { id: r.id, status: 0 }, merchantA.token);
    await t.post(`${R}/deleteRole`, { id: r.id }, merchantA.token);
    // only the database shows the operation log
    const rows = await t.db
      .selectFrom('operate_log')
      .select(['module', 'action', 'success'])
      .where('biz_id', '=', String(r.id))
      .where('path', 'like', '/manage-api/system/role/%')
      .orderBy('id')
      .execute();
    expect(rows.map((x) => [x.module, x.action, x.success])).toEqual([
      ['角色管理', '新增角色', true],
      ['角色管理', '修改角色', true],
      ['角色管理', '启用/停用角色', true],
      ['角色管理', '删除角色', true],
    ]);
  });
});
