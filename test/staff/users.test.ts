import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDept, createMerchant, createShop, uniq } from '../helpers/factories.js';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { insertRole } from '../../src/modules/staff/index.js';

const U = '/manage-api/system/user';
const ALL = ['staff:read', 'staff:write'];

let t: TestApp;
let platform: StaffSession;
let merchantA: StaffSession;
let shopA1: StaffSession;
let merchantB: StaffSession;
/** a platform user holding * (grants any role) */
let root: StaffSession;
let org: {
  merchantA: number;
  shopA1: number;
  shopA2: number;
  merchantB: number;
  deptA: number;
  deptA1: number;
  deptB: number;
};

beforeAll(async () => {
  t = await createTestApp();
  const merchantAId = await createMerchant(t.db);
  const merchantBId = await createMerchant(t.db);
  const shopA1Id = await createShop(t.db, { merchant_id: merchantAId });
  org = {
    merchantA: merchantAId,
    shopA1: shopA1Id,
    shopA2: await createShop(t.db, { merchant_id: merchantAId }),
    merchantB: merchantBId,
    deptA: await createDept(t.db, { merchant_id: merchantAId }),
    deptA1: await createDept(t.db, { shop_id: shopA1Id }),
    deptB: await createDept(t.db, { merchant_id: merchantBId }),
  };
  platform = await staffSession(t, { kind: 'platform', permissions: [...ALL, 'role:read', 'merchant:read'] });
  merchantA = await staffSession(t, {
    kind: 'merchant',
    merchantId: org.merchantA,
    permissions: [...ALL, 'sales:read'],
  });
  shopA1 = await staffSession(t, { kind: 'shop', shopId: org.shopA1, permissions: ALL });
  merchantB = await staffSession(t, { kind: 'merchant', merchantId: org.merchantB, permissions: ALL });
  root = await staffSession(t, { kind: 'platform', permissions: ['*'] });
});
afterAll(() => t?.close());

type Added = {
  id: number;
  username: string;
  password: string;
  userType: number;
  merchantId: number | null;
  shopId: number | null;
  roles: Array<{ id: number }>;
};

async function addOk(who: StaffSession, body: Record<string, unknown>): Promise<Added> {
  const res = await t.post(`${U}/addUser`, { username: uniq('u'), ...body }, who.token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data;
}
const role = (permissions: string[], o: { merchantId?: number; shopId?: number } = {}) =>
  insertRole(
    t.db,
    {
      code: uniq('r_'),
      name: 'test role',
      permissions,
      merchantId: o.merchantId ?? null,
      shopId: o.shopId ?? null,
      remark: null,
    },
    null,
  );

describe('rejection matrix', () => {
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${U}/addUser`,
    permission: 'staff:write',
    validBody: () => ({ username: uniq('m'), userType: 1 }),
    badInputs: [
      { body: () => ({ userType: 1 }), field: 'username', rule: /required/ },
      { body: () => ({ username: 'has space', userType: 1 }), field: 'username' },
      { body: () => ({ username: 'ab', userType: 1 }), field: 'username' },
      { body: () => ({ username: uniq('m') }), field: 'userType', rule: /required/ },
      { body: () => ({ username: uniq('m'), userType: 4 }), field: 'userType' },
      { body: () => ({ username: uniq('m'), userType: 1, mobile: '12345' }), field: 'mobile' },
      { body: () => ({ username: uniq('m'), userType: 1, roleIds: [0] }), field: 'roleIds' },
      { body: () => ({ username: uniq('m'), userType: 2 }), field: 'merchantId', rule: /required/ },
      { body: () => ({ username: uniq('m'), userType: 3 }), field: 'shopId', rule: /required/ },
      { body: () => ({ username: uniq('m'), userType: 1, merchantId: 1 }), field: 'merchantId' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${U}/updateUser`,
    permission: 'staff:write',
    validBody: () => ({ id: 1 }),
    badInputs: [
      { body: () => ({ nickname: 'x' }), field: 'id' },
      { body: () => ({ id: 1, roleIds: 'all' }), field: 'roleIds' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${U}/assignUserRoles`,
    permission: 'staff:write',
    validBody: () => ({ id: 1, roleIds: [] }),
    badInputs: [{ body: () => ({ id: 1 }), field: 'roleIds', rule: /required/ }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${U}/updateUserStatus`,
    permission: 'staff:write',
    validBody: () => ({ id: 1, status: 1 }),
    badInputs: [{ body: () => ({ id: 1, status: -1 }), field: 'status' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${U}/resetUserPassword`,
    permission: 'staff:write',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({}), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${U}/deleteUser`,
    permission: 'staff:write',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({ id: 'x' }), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${U}/getUser`,
    permission: 'staff:read',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({}), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${U}/queryUserPage`,
    permission: 'staff:read',
    validBody: () => ({}),
    badInputs: [
      { body: () => ({ pageSize: 1.5 }), field: 'pageSize' },
      { body: () => ({ userType: 9 }), field: 'userType' },
    ],
  });
});

describe('adding users', () => {
  it('adds a user with a generated first password that logs in, answered once and stored only as an argon2id hash', async () => {
    const nickname = 'Operator Zhang';
    const u = await addOk(platform, {
      userType: 2,
      merchantId: org.merchantA,
      deptId: org.deptA,
      nickname,
      mobile: '13912345678',
    });
    expect(u).toMatchObject({
      userType: 2,
      merchantId: org.merchantA,
      shopId: null,
      deptId: org.deptA,
      nickname,
      mobile: '13912345678',
      status: 1,
      roles: [],
    });
    expect(u.password).toMatch(/^(?=.*[A-Z])(?=.*[a-z])(?=.*\d).{12}$/);
    // only the database shows the password hash
    const row = await t.db
      .selectFrom('admin_user')
      .select('password_hash')
      .where('id', '=', u.id)
      .executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
    const login = await t.loginStaff(u.username, u.password);
    expect(login.userId).toBe(u.id);
    const got = await t.post(`${U}/getUser`, { id: u.id }, platform.token);
    expect(got.body.data).not.toHaveProperty('password');
    expect(got.body.data).toMatchObject({ id: u.id, merchantName: expect.any(String), deptName: expect.any(String) });
  });

  it("places users by the caller's scope: merchant users within their merchant, shop users within their shop", async () => {
    const m = await addOk(merchantA, { userType: 2 });
    expect(m.merchantId).toBe(org.merchantA);
    const s = await addOk(merchantA, { userType: 3, shopId: org.shopA2 });
    expect(s).toMatchObject({ merchantId: org.merchantA, shopId: org.shopA2 });
    const own = await addOk(shopA1, { userType: 3, deptId: org.deptA1 });
    expect(own).toMatchObject({ merchantId: org.merchantA, shopId: org.shopA1, deptId: org.deptA1 });
    const refused = { errcode: 403, errmsg: 'you may only add users to your own merchant or shop' };
    expect((await t.post(`${U}/addUser`, { username: uniq('x'), userType: 1 }, merchantA.token)).body).toEqual(refused);
    expect(
      (await t.post(`${U}/addUser`, { username: uniq('x'), userType: 2, merchantId: org.merchantB }, merchantA.token))
        .body,
    ).toEqual(refused);
    expect((await t.post(`${U}/addUser`, { username: uniq('x'), userType: 2 }, shopA1.token)).body).toEqual(refused);
    expect(
      (await t.post(`${U}/addUser`, { username: uniq('x'), userType: 3, shopId: org.shopA2 }, shopA1.token)).body,
    ).toEqual(refused);
    const foreignShop = await createShop(t.db, { merchant_id: org.merchantB });
    expect(
      (await t.post(`${U}/addUser`, { username: uniq('x'), userType: 3, shopId: foreignShop }, merchantA.token)).body,
    ).toEqual(refused);
  });

  it('refuses unknown places and departments of another merchant or shop', async () => {
    expect(
      (await t.post(`${U}/addUser`, { username: uniq('x'), userType: 2, merchantId: 999_999_999 }, platform.token)).body
        .errcode,
    ).toBe(404);
    expect(
      (await t.post(`${U}/addUser`, { username: uniq('x'), userType: 3, shopId: 999_999_999 }, platform.token)).body
        .errcode,
    ).toBe(404);
    expect(
      (
        await t.post(
          `${U}/addUser`,
          { username: uniq('x'), userType: 3, shopId: org.shopA1, merchantId: org.merchantB },
          platform.token,
        )
      ).body.errcode,
    ).toBe(404);
    const deptRefused = { errcode: 404, errmsg: "department (deptId) of the user's merchant or shop not found" };
    expect(
      (await t.post(`${U}/addUser`, { username: uniq('x'), userType: 2, deptId: org.deptB }, merchantA.token)).body,
    ).toEqual(deptRefused);
    expect(
      (
        await t.post(
          `${U}/addUser`,
          { username: uniq('x'), userType: 3, shopId: org.shopA1, deptId: org.deptA },
          merchantA.token,
        )
      ).body,
    ).toEqual(deptRefused);
  });

  it('refuses a user under a disabled merchant with 1_022_000_001', async () => {
    const merchantId = await createMerchant(t.db, { status: 0 });
    const res = await t.post(`${U}/addUser`, { username: uniq('x'), userType: 2, merchantId }, platform.token);
    expect(res.body.errcode).toBe(1_022_000_001);
    expect(res.body.errmsg).toMatch(/is disabled/);
  });

  it('refuses a username in use with 409 (also when adds race) and frees it when the user is deleted', async () => {
    const username = uniq('dup');
    const answers = await Promise.all(
      [1, 2, 3].map(() => t.post(`${U}/addUser`, { username, userType: 1 }, platform.token)),
    );
    expect(answers.map((a) => a.body.errcode).sort()).toEqual([0, 409, 409]);
    expect(answers.find((a) => a.body.errcode === 409)!.body.errmsg).toBe(`username "${username}" is already taken`);
    const id = answers.find((a) => a.body.errcode === 0)!.body.data.id;
    expect((await t.post(`${U}/deleteUser`, { id }, platform.token)).body.errcode).toBe(0);
    expect((await t.post(`${U}/getUser`, { id }, platform.token)).body.errcode).toBe(404);
    expect((await t.post(`${U}/addUser`, { username, userType: 1 }, platform.token)).body.errcode).toBe(0);
  });
});

describe('roles of users', () => {
  it('gives roles the caller may grant and refuses the others', async () => {
    const salesRead = await role(['sales:read']);
    const cardWrite = await role(['card:write']);
    const own = await role(['staff:read'], { merchantId: org.merchantA });
    const foreign = await role(['staff:read'], { merchantId: org.merchantB });
    const u = await addOk(merchantA, { userType: 2, roleIds: [salesRead, own] });
    expect(u.roles.map((r) => r.id).sort()).toEqual([salesRead, own].sort());
    const beyond = await t.post(
      `${U}/addUser`,
      { username: uniq('x'), userType: 2, roleIds: [cardWrite] },
      merchantA.token,
    );
    expect(beyond.body.errcode).toBe(1_022_000_002);
    expect(beyond.body.errmsg).toContain('card:write');
    // Another merchant's role is not even visible to merchant A.
    expect((await t.post(`${U}/assignUserRoles`, { id: u.id, roleIds: [foreign] }, merchantA.token)).body).toEqual({
      errcode: 404,
      errmsg: `role ${foreign} not found`,
    });
    // The platform sees it, but it does not fit a user of merchant A.
    expect((await t.post(`${U}/assignUserRoles`, { id: u.id, roleIds: [foreign] }, root.token)).body.errcode).toBe(409);
    expect(
      (await t.post(`${U}/assignUserRoles`, { id: u.id, roleIds: [cardWrite, salesRead] }, root.token)).body.errcode,
    ).toBe(0);
    // Merchant A may keep the card:write role it could not give, and take it away, but not give it back.
    expect((await t.post(`${U}/updateUser`, { id: u.id, nickname: 'kept' }, merchantA.token)).body.errcode).toBe(
      1_022_000_002,
    );
  });

  it("ends the user's sessions at once when its roles change, and not when only its details do", async () => {
    const r = await role(['sales:read']);
    const u = await addOk(root, { userType: 2, merchantId: org.merchantA });
    const s1 = await t.loginStaff(u.username, u.password);
    expect(
      (await t.post(`${U}/updateUser`, { id: u.id, nickname: 'new name', deptId: org.deptA }, root.token)).body.errcode,
    ).toBe(0);
    expect((await t.post('/manage-api/sales/querySalesList', {}, s1.accessToken)).body.errcode).toBe(403);
    expect((await t.post(`${U}/updateUser`, { id: u.id, roleIds: [r] }, root.token)).body.errcode).toBe(0);
    expect((await t.post('/manage-api/sales/querySalesList', {}, s1.accessToken)).body.errcode).toBe(401);
    const s2 = await t.loginStaff(u.username, u.password);
    expect((await t.post('/manage-api/sales/querySalesList', {}, s2.accessToken)).body.errcode).toBe(0);
    expect((await t.post(`${U}/assignUserRoles`, { id: u.id, roleIds: [] }, root.token)).body.errcode).toBe(0);
    expect((await t.post('/manage-api/sales/querySalesList', {}, s2.accessToken)).body.errcode).toBe(401);
  });

  it('refuses to change an account that holds permissions the caller lacks', async () => {
    const big = await role(['card:write'], { merchantId: org.merchantA });
    const u = await addOk(root, { userType: 2, merchantId: org.merchantA, roleIds: [big] });
    const res = await t.post(`${U}/resetUserPassword`, { id: u.id }, merchantA.token);
    expect(res.body.errcode).toBe(1_022_000_002);
    expect(res.body.errmsg).toMatch(/holds card:write/);
    expect((await t.post(`${U}/updateUserStatus`, { id: u.id, status: 0 }, merchantA.token)).body.errcode).toBe(
      1_022_000_002,
    );
    expect((await t.post(`${U}/deleteUser`, { id: u.id }, merchantA.token)).body.errcode).toBe(1_022_000_002);
  });
});

describe('status, passwords, deletion', () => {
  it('disabling ends the sessions and refuses the login; enabling lets it in again', async () => {
    const u = await addOk(merchantA, { userType: 3, shopId: org.shopA1 });
    const s = await t.loginStaff(u.username, u.password);
    expect((await t.post(`${U}/updateUserStatus`, { id: u.id, status: 0 }, merchantA.token)).body.errcode).toBe(0);
    expect((await t.post(`${U}/getUser`, { id: u.id }, s.accessToken)).body.errcode).toBe(401);
    await expect(t.loginStaff(u.username, u.password)).rejects.toThrow(/disabled/);
    expect((await t.post(`${U}/updateUserStatus`, { id: u.id, status: 1 }, merchantA.token)).body.errcode).toBe(0);
    expect((await t.loginStaff(u.username, u.password)).userId).toBe(u.id);
  });

  it('resets a password: a new one answered once, the old one and every session end', async () => {
    const u = await addOk(platform, { userType: 1 });
    const s = await t.loginStaff(u.username, u.password);
    const res = await t.post(`${U}/resetUserPassword`, { id: u.id }, platform.token);
    expect(res.body.data.password).toMatch(/^.{12}$/);
    expect(res.body.data.password).not.toBe(u.password);
    expect((await t.post('/manage-api/auth/logout', {}, s.accessToken)).body.errcode).toBe(401);
    await expect(t.loginStaff(u.username, u.password)).rejects.toThrow(/login of/);
    expect((await t.loginStaff(u.username, res.body.data.password)).userId).toBe(u.id);
  });

  it('lets every user change its own password, ending its sessions', async () => {
    const u = await addOk(platform, { userType: 1 });
    const s = await t.loginStaff(u.username, u.password);
    const wrong = await t.post(
      `${U}/updatePassword`,
      { oldPassword: 'nope', newPassword: 'Better2026x' },
      s.accessToken,
    );
    expect(wrong.body).toEqual({ errcode: 400, errmsg: 'oldPassword is invalid: it is not your current password' });
    const weak = await t.post(
      `${U}/updatePassword`,
      { oldPassword: u.password, newPassword: 'onlyletters' },
      s.accessToken,
    );
    expect(weak.body.errcode).toBe(400);
    expect(weak.body.errmsg).toContain('newPassword');
    expect(
      (await t.post(`${U}/updatePassword`, { oldPassword: u.password, newPassword: 'Better2026x' }, s.accessToken)).body
        .errcode,
    ).toBe(0);
    expect((await t.post('/manage-api/auth/logout', {}, s.accessToken)).body.errcode).toBe(401);
    expect((await t.loginStaff(u.username, 'Better2026x')).userId).toBe(u.id);
  });

  it("refuses to disable or delete one's own account", async () => {
    const self = await t.post(`${U}/updateUserStatus`, { id: platform.userId, status: 0 }, platform.token);
    expect(self.body).toEqual({ errcode: 1_022_000_003, errmsg: 'you cannot disable your own account' });
    expect((await t.post(`${U}/deleteUser`, { id: platform.userId }, platform.token)).body.errcode).toBe(1_022_000_003);
  });

  it('deletes a user logically: its sessions end, it cannot log in, the row stays', async () => {
    const u = await addOk(merchantA, { userType: 2 });
    const s = await t.loginStaff(u.username, u.password);
    expect((await t.post(`${U}/deleteUser`, { id: u.id }, merchantA.token)).body.errcode).toBe(0);
    expect((await t.post(`${U}/getUser`, { id: u.id }, s.accessToken)).body.errcode).toBe(401);
    await expect(t.loginStaff(u.username, u.password)).rejects.toThrow();
    // only the database shows the deleted user's row, kept for history
    const row = await t.db
      .selectFrom('admin_user')
      .select(['is_deleted'])
      .where('id', '=', u.id)
      .executeTakeFirstOrThrow();
    expect(row.is_deleted).toBe(true);
  });
});

describe('scoping and paging', () => {
  it("shows and changes only the caller's merchant's or shop's users", async () => {
    const tag = uniq('scope');
    const a = await addOk(merchantA, { userType: 2, nickname: tag });
    const a1 = await addOk(merchantA, { userType: 3, shopId: org.shopA1, nickname: tag });
    const a2 = await addOk(merchantA, { userType: 3, shopId: org.shopA2, nickname: tag });
    const b = await addOk(merchantB, { userType: 2, nickname: tag });
    const ids = async (who: StaffSession, extra: object = {}) =>
      (
        (await t.post(`${U}/queryUserPage`, { keywords: tag, ...extra }, who.token)).body.data.list as Array<{
          id: number;
        }>
      ).map((u) => u.id);
    expect(await ids(platform)).toEqual([b.id, a2.id, a1.id, a.id]);
    expect(await ids(merchantA)).toEqual([a2.id, a1.id, a.id]);
    expect(await ids(shopA1)).toEqual([a1.id]);
    expect(await ids(merchantA, { userType: 3, shopId: org.shopA2 })).toEqual([a2.id]);
    expect((await t.post(`${U}/getUser`, { id: b.id }, merchantA.token)).body).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another merchant',
    });
    expect((await t.post(`${U}/getUser`, { id: a2.id }, shopA1.token)).body).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another shop',
    });
    expect((await t.post(`${U}/getUser`, { id: platform.userId }, merchantA.token)).body.errcode).toBe(403);
    expect((await t.post(`${U}/resetUserPassword`, { id: b.id }, merchantA.token)).body.errcode).toBe(403);
    const page = await t.post(`${U}/queryUserPage`, { keywords: tag, pageSize: 2, pageNum: 2 }, platform.token);
    expect(page.body.data).toEqual({
      list: [expect.objectContaining({ id: a1.id }), expect.objectContaining({ id: a.id })],
      total: 4,
    });
  });

  it('filters by role', async () => {
    const r = await role(['sales:read']);
    const u = await addOk(root, { userType: 1, roleIds: [r] });
    const page = await t.post(`${U}/queryUserPage`, { roleId: r }, root.token);
    expect(page.body.data).toEqual({
      list: [expect.objectContaining({ id: u.id, roles: [expect.objectContaining({ id: r })] })],
      total: 1,
    });
  });
});

describe('operation log', () => {
  it('records each write with the user id', async () => {
    const u = await addOk(platform, { userType: 1 });
    await t.post(`${U}/updateUser`, { id: u.id, nickname: 'n' }, platform.token);
    await t.post(`${U}/resetUserPassword`, { id: u.id }, platform.token);
    await t.post(`${U}/updateUserStatus`, { id: u.id, status: 0 }, platform.token);
    await t.post(`${U}/deleteUser`, { id: u.id }, platform.token);
    // only the database shows the operation log
    const rows = await t.db
      .selectFrom('operate_log')
      .select(['module', 'action', 'success'])
      .where('biz_id', '=', String(u.id))
      .where('path', 'like', '/manage-api/system/user/%')
      .orderBy('id')
      .execute();
    expect(rows.map((r) => r.action)).toEqual(['新增用户', '修改用户', '重置密码', '启用/停用用户', '删除用户']);
    expect(rows.every((r) => r.module === '用户管理' && r.success)).toBe(true);
  });
});

describe('the last administrator', () => {
  it('refuses a change that would leave no enabled account holding *', async () => {
    const boss = await staffSession(t, { kind: 'platform', permissions: ['*'] });
    // Every other holder of * goes first (the bootstrap admin and the test's own).
    const roles = (await t.post('/manage-api/system/role/queryRoleList', {}, boss.token)).body.data as Array<{
      id: number;
      permissions: string[];
    }>;
    const holders = new Set<number>();
    for (const r of roles.filter((x) => x.permissions.includes('*'))) {
      const page = (await t.post(`${U}/queryUserPage`, { roleId: r.id, status: 1, pageSize: 200 }, boss.token)).body
        .data;
      expect(page.total).toBeLessThanOrEqual(200);
      for (const u of page.list as Array<{ id: number }>) holders.add(u.id);
    }
    expect(holders).toContain(boss.userId);
    const others = [...holders].filter((id) => id !== boss.userId).map((id) => ({ id }));
    for (const o of others)
      expect((await t.post(`${U}/updateUserStatus`, { id: o.id, status: 0 }, boss.token)).body.errcode).toBe(0);
    const res = await t.post(`${U}/assignUserRoles`, { id: boss.userId, roleIds: [] }, boss.token);
    expect(res.body.errcode).toBe(1_022_000_004);
    const superRole = boss.account.permissions.includes('*')
      ? ((await t.post(`${U}/getUser`, { id: boss.userId }, boss.token)).body.data.roles as Array<{ id: number }>)[0].id
      : 0;
    const roleOff = await t.post('/manage-api/system/role/updateRoleStatus', { id: superRole, status: 0 }, boss.token);
    expect(roleOff.body.errcode).toBe(1_022_000_004);
    for (const o of others)
      expect((await t.post(`${U}/updateUserStatus`, { id: o.id, status: 1 }, boss.token)).body.errcode).toBe(0);
    expect(
      (await t.post('/manage-api/system/role/updateRoleStatus', { id: superRole, status: 0 }, boss.token)).body.errcode,
    ).toBe(0);
  });
});
