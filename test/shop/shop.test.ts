import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChecker, createMerchant, createSpu, uniq } from '../helpers/factories.js';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { addStaff, staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { SHOP_ADMIN_ROLE } from '../../src/modules/shop/shop.service.js';
import { insertRole, replaceUserRoles } from '../../src/modules/staff/index.js';

/** Shops (spec B 2.6, 4.6 addShop; get, list, page, update, delete are ours). */
const P = '/manage-api/shop';
// adding a shop grants its default user the shop-admin role's permissions, so the caller holds them
const ALL = ['shop:read', 'shop:write', ...SHOP_ADMIN_ROLE.permissions];

let t: TestApp;
let merchantAId: number;
let merchantBId: number;
let platform: StaffSession;
let merchantA: StaffSession;
let merchantB: StaffSession;
/** reads users, departments and roles through their own operations, and sets up what a test needs there */
let ops: StaffSession;

beforeAll(async () => {
  t = await createTestApp();
  merchantAId = await createMerchant(t.db, { name: `Lakeside Group ${uniq()}` });
  merchantBId = await createMerchant(t.db);
  platform = await staffSession(t, { kind: 'platform', permissions: ALL });
  merchantA = await staffSession(t, { kind: 'merchant', merchantId: merchantAId, permissions: ALL });
  merchantB = await staffSession(t, { kind: 'merchant', merchantId: merchantBId, permissions: ALL });
  ops = await staffSession(t, {
    kind: 'platform',
    permissions: [
      ...ALL,
      'staff:read',
      'staff:write',
      'dept:read',
      'role:read',
      'role:write',
      'merchant:write',
      'member:write',
      'card:read',
    ],
  });
});
afterAll(() => t?.close());

type Added = {
  id: number;
  name: string;
  merchantId: number;
  deptId: number;
  userId: number;
  username: string;
  password: string;
};
const shop = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  merchantId: merchantAId,
  name: uniq('West Lake Gate '),
  ...over,
});
async function addOk(who: StaffSession, body: Record<string, unknown>): Promise<Added> {
  const res = await t.post(`${P}/addShop`, body, who.token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data;
}
const getShop = async (id: number, who = platform) => (await t.post(`${P}/getShop`, { id }, who.token)).body;
const shopIds = async (f: object) =>
  ((await t.post(`${P}/queryShopList`, f, platform.token)).body.data as Array<{ id: number }>).map((s) => s.id);
const getUser = async (id: number) => (await t.post('/manage-api/system/user/getUser', { id }, ops.token)).body;
const getDept = async (id: number) => (await t.post('/manage-api/system/dept/getDept', { id }, ops.token)).body;
const userTotal = async (): Promise<number> =>
  (await t.post('/manage-api/system/user/queryUserPage', {}, ops.token)).body.data.total;
const setUserRoles = async (id: number, roleIds: number[]) =>
  expect((await t.post('/manage-api/system/user/assignUserRoles', { id, roleIds }, ops.token)).body).toEqual({
    errcode: 0,
    errmsg: 'success',
  });

describe('rejection matrix', () => {
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/addShop`,
    permission: 'shop:write',
    validBody: () => shop(),
    badInputs: [
      { body: () => ({ name: 'x' }), field: 'merchantId', rule: /merchantId is required/ },
      { body: () => ({ merchantId: merchantAId }), field: 'name', rule: /name is required/ },
      { body: () => shop({ status: 5 }), field: 'status', rule: /between 1 and 4/ },
      { body: () => shop({ mobile: 'call us' }), field: 'mobile' },
      { body: () => shop({ lng: 'east' }), field: 'lng' },
      { body: () => shop({ provinceId: 'Zhejiang' }), field: 'provinceId' },
      { body: () => shop({ relationList: [{ channelType: 9 }] }), field: 'relationList[0].channelType' },
      { body: () => shop({ relationList: {} }), field: 'relationList' },
      { body: () => shop({ address: 'x'.repeat(256) }), field: 'address' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/updateShop`,
    permission: 'shop:write',
    validBody: () => ({ id: 1, name: 'x' }),
    badInputs: [
      { body: () => ({ name: 'x' }), field: 'id', rule: /id is required/ },
      { body: () => ({ id: 1 }), field: 'name' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/deleteShop`,
    permission: 'shop:write',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({ id: 1.5 }), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/getShop`,
    permission: 'shop:read',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({}), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/queryShopList`,
    permission: 'shop:read',
    validBody: () => ({}),
    badInputs: [{ body: () => ({ status: 0 }), field: 'status' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/queryShopPage`,
    permission: 'shop:read',
    validBody: () => ({}),
    badInputs: [{ body: () => ({ pageSize: 1.5 }), field: 'pageSize' }],
  });
});

describe('addShop', () => {
  it('refuses a caller who does not hold what the default shop user is granted (1_022_000_002)', async () => {
    const narrow = await staffSession(t, {
      kind: 'merchant',
      merchantId: merchantAId,
      permissions: ['shop:read', 'shop:write'],
    });
    const res = await t.post(`${P}/addShop`, shop({ name: uniq('Too Wide '), merchantId: merchantAId }), narrow.token);
    expect(res.body.errcode).toBe(1_022_000_002);
    expect(res.body.errmsg).toMatch(/default shop user's \S+: you do not hold it/);
    expect(await shopIds({ name: 'Too Wide ' })).toEqual([]);
  });

  it('creates the shop, its top-level department, a default shop user with the shop-admin role, and the relations', async () => {
    const name = uniq('Nine Creeks ');
    const added = await addOk(
      merchantA,
      shop({
        name,
        status: 2,
        address: '1 Creek Road',
        mobile: '0571-87654321',
        linkphone: '13900001111',
        lng: '120.1234',
        lat: '30.25',
        relationList: [
          { thirdName: 'Digital platform', thirdId: 'DT-1', channelType: 3, remark: 'id there' },
          { thirdId: 'BANK-7', channelType: 6 },
        ],
      }),
    );
    expect(added).toEqual({
      id: expect.any(Number),
      name,
      merchantId: merchantAId,
      deptId: expect.any(Number),
      userId: expect.any(Number),
      username: `shop${added.id}`,
      password: expect.stringMatching(/^\S{14}$/),
    });

    const got = await getShop(added.id, merchantA);
    expect(got.data).toMatchObject({
      id: added.id,
      merchantId: merchantAId,
      name,
      status: 2,
      address: '1 Creek Road',
      mobile: '0571-87654321',
      lng: '120.1234',
      logo: null,
      relationList: [
        {
          id: expect.any(Number),
          thirdName: 'Digital platform',
          thirdId: 'DT-1',
          channelType: '3',
          remark: 'id there',
        },
        { id: expect.any(Number), thirdName: null, thirdId: 'BANK-7', channelType: '6', remark: null },
      ],
    });
    expect(await getDept(added.deptId)).toMatchObject({
      errcode: 0,
      data: { merchantId: merchantAId, shopId: added.id, parentId: 0, name },
    });
    const user = await getUser(added.userId);
    expect(user).toMatchObject({
      errcode: 0,
      data: {
        username: added.username,
        userType: 3,
        merchantId: merchantAId,
        shopId: added.id,
        deptId: added.deptId,
        status: 1,
      },
    });
    // only the database shows the stored password hash
    const { password_hash } = await t.db
      .selectFrom('admin_user')
      .select('password_hash')
      .where('id', '=', added.userId)
      .executeTakeFirstOrThrow();
    expect(password_hash).toMatch(/^\$argon2id\$/);
    expect(password_hash).not.toContain(added.password);
    expect(user.data.roles).toEqual([{ id: expect.any(Number), code: SHOP_ADMIN_ROLE.code, name: expect.any(String) }]);
    const role = (await t.post('/manage-api/system/role/getRole', { id: user.data.roles[0].id }, ops.token)).body;
    expect(role.data.permissions).toEqual(expect.arrayContaining(['shop:read', 'catalog:*', 'dept:*']));

    // The password works once, through the real login; the new user sees its own shop.
    const login = await t.loginStaff(added.username, added.password);
    const own = await t.post(`${P}/getShop`, { id: added.id }, login.accessToken);
    expect(own.body.data.id).toBe(added.id);
    expect(
      (await t.post(`${P}/queryShopList`, {}, login.accessToken)).body.data.map((s: { id: number }) => s.id),
    ).toEqual([added.id]);
  });

  it('gives each default user a free name and a different password', async () => {
    const a = await addOk(platform, shop());
    // Someone already took the name the next shop's user would get.
    const nextId = a.id + 1;
    await addStaff(t.db, {
      username: `shop${nextId}`,
      passwordHash: 'unused',
      userType: 1,
      merchantId: null,
      shopId: null,
      permissions: [],
    });
    const b = await addOk(platform, shop());
    expect(b.id).toBe(nextId);
    expect(b.username).toBe(`shop${nextId}_2`);
    expect(b.password).not.toBe(a.password);
  });

  it('refuses an unknown merchant (404), another merchant (403) and shop users (403)', async () => {
    expect((await t.post(`${P}/addShop`, shop({ merchantId: 999_999_999 }), platform.token)).body).toEqual({
      errcode: 404,
      errmsg: 'merchant (merchantId) not found',
    });
    expect((await t.post(`${P}/addShop`, shop({ merchantId: merchantBId }), merchantA.token)).body).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another merchant',
    });
    const shopUser = await staffSession(t, { kind: 'shop', merchantId: merchantAId, permissions: ALL });
    expect((await t.post(`${P}/addShop`, shop(), shopUser.token)).body).toEqual({
      errcode: 403,
      errmsg: 'shop users cannot add shops',
    });
  });

  it('checks the caller against the shop-admin role as stored, not the built-in list (1_022_000_002)', async () => {
    const first = await addOk(merchantA, shop()); // the global role exists from here on
    const { id: roleId, name: roleName } = (await getUser(first.userId)).data.roles[0];
    const widen = async (permissions: string[]) =>
      expect(
        (await t.post('/manage-api/system/role/updateRole', { id: roleId, name: roleName, permissions }, ops.token))
          .body,
      ).toEqual({ errcode: 0, errmsg: 'success' });
    await widen([...SHOP_ADMIN_ROLE.permissions, 'card:read', 'staff:read']);
    try {
      const name = uniq('Escalation ');
      const res = await t.post(`${P}/addShop`, shop({ name }), merchantA.token);
      expect(res.body).toEqual({
        errcode: 1_022_000_002,
        errmsg: "you cannot grant the default shop user's card:read: you do not hold it yourself",
      });
      expect(await shopIds({ name })).toEqual([]);
      // One who holds what the stored role grants may add the shop; its user gets that role.
      const wide = await staffSession(t, {
        kind: 'merchant',
        merchantId: merchantAId,
        permissions: [...ALL, 'card:read', 'staff:read'],
      });
      const added = await addOk(wide, shop());
      const login = await t.loginStaff(added.username, added.password);
      expect((await t.post('/manage-api/system/user/queryUserPage', {}, login.accessToken)).body.errcode).toBe(0);
    } finally {
      await widen([...SHOP_ADMIN_ROLE.permissions]);
    }
  });

  it('adds no shop under a disabled merchant (1_022_000_001), and leaves nothing written', async () => {
    const merchantId = await createMerchant(t.db, { name: uniq('Dormant '), status: 0 });
    const before = await userTotal();
    const res = await t.post(`${P}/addShop`, shop({ merchantId }), platform.token);
    expect(res.body).toEqual({
      errcode: 1_022_000_001,
      errmsg: expect.stringMatching(/^merchant "Dormant .+" is disabled: enable it first$/),
    });
    expect(await shopIds({ merchantId })).toEqual([]);
    expect(await userTotal()).toBe(before);
    expect(
      (await t.post('/manage-api/merchant/updateMerchantStatus', { id: merchantId, status: 1 }, ops.token)).body,
    ).toEqual({ errcode: 0, errmsg: 'success' });
    expect((await addOk(platform, shop({ merchantId }))).merchantId).toBe(merchantId);
  });

  it('leaves nothing behind when the last step (the relations) fails', async () => {
    const name = uniq('Doomed ');
    // A failure no operation reaches: a trigger refuses the marked relation row.
    await sql
      .raw(
        `
      create or replace function fail_marked_relation() returns trigger language plpgsql as $$
      begin
        if new.remark = 'FAIL-INJECTED' then raise exception 'injected failure'; end if;
        return new;
      end $$`,
      )
      .execute(t.db);
    await sql
      .raw(
        'create trigger fail_marked_relation before insert on shop_relation for each row execute function fail_marked_relation()',
      )
      .execute(t.db);
    try {
      const before = await userTotal();
      const res = await t.post(
        `${P}/addShop`,
        shop({ name, relationList: [{ thirdId: 'ok' }, { thirdId: 'x', remark: 'FAIL-INJECTED' }] }),
        merchantA.token,
      );
      expect(res.body).toEqual({ errcode: 500, errmsg: 'internal server error' });
      expect(await shopIds({ name })).toEqual([]);
      expect((await t.post('/manage-api/system/dept/queryDeptList', { name }, ops.token)).body.data).toEqual([]);
      expect(await userTotal()).toBe(before);
      // only the database shows the operation log
      const log = await t.db
        .selectFrom('operate_log')
        .select(['action', 'success', 'errcode'])
        .where('account_id', '=', merchantA.userId)
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirstOrThrow();
      expect({ ...log, errcode: Number(log.errcode) }).toEqual({ action: '新增门店', success: false, errcode: 500 });
    } finally {
      await sql.raw('drop trigger fail_marked_relation on shop_relation').execute(t.db);
    }
  });
});

describe('updating and deleting', () => {
  it('updates fields (absent kept, "" cleared), replaces relations when given, and refuses another merchant', async () => {
    const s = await addOk(merchantA, shop({ address: 'Old road', tags: 'lake', relationList: [{ thirdId: 'R1' }] }));
    const upd = await t.post(`${P}/updateShop`, { id: s.id, name: 'Renamed', status: 4, tags: '' }, merchantA.token);
    expect(upd.body).toEqual({ errcode: 0, errmsg: 'success' });
    let got = (await getShop(s.id)).data;
    expect(got).toMatchObject({
      name: 'Renamed',
      status: 4,
      address: 'Old road',
      tags: null,
      relationList: [expect.objectContaining({ thirdId: 'R1' })],
    });
    await t.post(
      `${P}/updateShop`,
      { id: s.id, name: 'Renamed', relationList: [{ thirdId: 'R2', channelType: 1 }] },
      merchantA.token,
    );
    got = (await getShop(s.id)).data;
    expect(got.relationList.map((r: { thirdId: string }) => r.thirdId)).toEqual(['R2']);
    expect(
      (await t.post(`${P}/updateShop`, { id: s.id, name: 'x', merchantId: merchantBId }, platform.token)).body,
    ).toEqual({ errcode: 400, errmsg: 'merchantId is invalid: a shop cannot move to another merchant' });
  });

  it('refuses to delete a shop that business records refer to, naming them', async () => {
    const s = await addOk(merchantA, shop());
    const spu = await createSpu(t.db, { shop_id: s.id });
    const checker = await createChecker(t.db, { shop_id: s.id });
    const res = await t.post(`${P}/deleteShop`, { id: s.id }, merchantA.token);
    expect(res.body).toEqual({
      errcode: 409,
      errmsg: `the shop is still referenced by 1 resource (id ${spu}) and 1 verifier (id ${checker.id}): remove or move those first`,
    });
    expect((await getShop(s.id)).errcode).toBe(0);
  });

  it('refuses while staff of elsewhere sit in its departments', async () => {
    const s = await addOk(merchantA, shop());
    const outsider = await staffSession(t, { kind: 'merchant', merchantId: merchantAId });
    expect(
      (await t.post('/manage-api/system/user/updateUser', { id: outsider.userId, deptId: s.deptId }, ops.token)).body,
    ).toEqual({ errcode: 0, errmsg: 'success' });
    expect((await t.post(`${P}/deleteShop`, { id: s.id }, merchantA.token)).body.errmsg).toBe(
      `the shop is still referenced by 1 staff user of elsewhere in its departments (id ${outsider.userId}): remove or move those first`,
    );
  });

  it('deletes an unused shop with its departments and staff accounts, whose sessions end', async () => {
    const s = await addOk(merchantA, shop());
    const login = await t.loginStaff(s.username, s.password);
    expect((await t.post(`${P}/getShop`, { id: s.id }, login.accessToken)).body.errcode).toBe(0);
    expect((await t.post(`${P}/deleteShop`, { id: s.id }, merchantA.token)).body).toEqual({
      errcode: 0,
      errmsg: 'success',
    });
    expect(await getShop(s.id)).toEqual({ errcode: 404, errmsg: 'shop not found' });
    expect(await getDept(s.deptId)).toEqual({ errcode: 404, errmsg: 'department not found' });
    expect(await getUser(s.userId)).toEqual({ errcode: 404, errmsg: 'staff user not found' });
    // only the database shows the rows kept for history, marked deleted
    expect(
      (await t.db.selectFrom('dept').select('is_deleted').where('id', '=', s.deptId).executeTakeFirstOrThrow())
        .is_deleted,
    ).toBe(true);
    expect(
      (await t.db.selectFrom('admin_user').select('is_deleted').where('id', '=', s.userId).executeTakeFirstOrThrow())
        .is_deleted,
    ).toBe(true);
    expect((await t.post(`${P}/getShop`, { id: s.id }, login.accessToken)).body.errcode).toBe(401);
    expect((await t.post(`${P}/deleteShop`, { id: s.id }, merchantA.token)).body.errcode).toBe(404);
  });

  it('refuses to delete a shop whose account holds a permission the caller lacks, as deleteUser does (1_022_000_002)', async () => {
    const s = await addOk(merchantA, shop());
    const extra = (
      await t.post(
        '/manage-api/system/role/addRole',
        { code: uniq('memberw_'), name: 'member writer', permissions: ['member:write'] },
        ops.token,
      )
    ).body.data;
    const shopAdminRoleId: number = (await getUser(s.userId)).data.roles[0].id;
    await setUserRoles(s.userId, [shopAdminRoleId, extra.id]);
    const above = {
      errcode: 1_022_000_002,
      errmsg: 'this account holds member:write, which you do not hold: only someone holding it may change the account',
    };
    expect((await t.post(`${P}/deleteShop`, { id: s.id }, merchantA.token)).body).toEqual(above);
    expect((await getShop(s.id)).errcode).toBe(0);
    expect((await getUser(s.userId)).errcode).toBe(0);
    expect((await getDept(s.deptId)).errcode).toBe(0);
    // Once the account holds nothing beyond the caller, the shop goes with it.
    await setUserRoles(s.userId, [shopAdminRoleId]);
    expect((await t.post(`${P}/deleteShop`, { id: s.id }, merchantA.token)).body).toEqual({
      errcode: 0,
      errmsg: 'success',
    });
  });

  it('refuses to delete a shop whose account is the last enabled holder of * (1_022_000_004)', async () => {
    const s = await addOk(merchantA, shop());
    // Through the staff module's front door: granting * through addRole takes a caller holding * itself, one more
    // holder of * that this test needs gone.
    const star = await insertRole(
      t.db,
      { code: uniq('star_'), name: 'everything', permissions: ['*'], merchantId: null, shopId: null, remark: null },
      null,
    );
    await replaceUserRoles(t.db, s.userId, [
      ...(await getUser(s.userId)).data.roles.map((r: { id: number }) => r.id),
      star,
    ]);
    // A merchant administrator lacks * itself: refused as for deleteUser.
    expect((await t.post(`${P}/deleteShop`, { id: s.id }, merchantA.token)).body.errcode).toBe(1_022_000_002);
    // A caller whose session still carries * while its stored roles no longer do (the guard counts the stored ones).
    const caller = await staffSession(t, { kind: 'platform', permissions: ['*'] });
    // Not through updateRole: it ends its holders' sessions, and this one must keep carrying *.
    const callerRole = await t.db
      .selectFrom('user_role')
      .select('role_id')
      .where('user_id', '=', caller.userId)
      .executeTakeFirstOrThrow();
    await t.db
      .updateTable('role')
      .set({ permissions: ['shop:write'] })
      .where('id', '=', callerRole.role_id)
      .execute();
    // Every other enabled holder of * is disabled for a moment (updateUserStatus would take a caller holding *).
    const others = await t.db
      .selectFrom('admin_user as u')
      .innerJoin('user_role as ur', 'ur.user_id', 'u.id')
      .innerJoin('role as r', 'r.id', 'ur.role_id')
      .select('u.id')
      .where('u.status', '=', 1)
      .where('u.is_deleted', '=', false)
      .where('u.id', '!=', s.userId)
      .where(sql<boolean>`'*' = any(r.permissions)`)
      .execute();
    const otherIds = [...new Set(others.map((o) => o.id))];
    if (otherIds.length) await t.db.updateTable('admin_user').set({ status: 0 }).where('id', 'in', otherIds).execute();
    try {
      expect((await t.post(`${P}/deleteShop`, { id: s.id }, caller.token)).body).toEqual({
        errcode: 1_022_000_004,
        errmsg:
          'this is the last enabled account holding every permission (*): the platform would have no administrator left',
      });
      expect((await getShop(s.id)).errcode).toBe(0);
      expect((await getUser(s.userId)).errcode).toBe(0);
    } finally {
      if (otherIds.length)
        await t.db.updateTable('admin_user').set({ status: 1 }).where('id', 'in', otherIds).execute();
    }
    // With another administrator enabled again, the same call succeeds.
    expect((await t.post(`${P}/deleteShop`, { id: s.id }, caller.token)).body).toEqual({
      errcode: 0,
      errmsg: 'success',
    });
  });

  it('does not let a shop user delete its shop', async () => {
    const s = await addOk(merchantA, shop());
    const shopUser = await staffSession(t, { kind: 'shop', shopId: s.id, permissions: ALL });
    expect((await t.post(`${P}/deleteShop`, { id: s.id }, shopUser.token)).body).toEqual({
      errcode: 403,
      errmsg: 'shop users cannot delete shops',
    });
  });
});

describe('scoping and lists', () => {
  it("refuses another merchant's or shop's shop with 403 on every operation", async () => {
    const theirs = await addOk(merchantB, shop({ merchantId: merchantBId }));
    const refused = { errcode: 403, errmsg: 'the record belongs to another merchant' };
    expect(await getShop(theirs.id, merchantA)).toEqual(refused);
    expect((await t.post(`${P}/updateShop`, { id: theirs.id, name: 'Taken' }, merchantA.token)).body).toEqual(refused);
    expect((await t.post(`${P}/deleteShop`, { id: theirs.id }, merchantA.token)).body).toEqual(refused);
    const mine = await addOk(merchantA, shop());
    const sibling = await staffSession(t, { kind: 'shop', merchantId: merchantAId, permissions: ALL });
    expect(await getShop(mine.id, sibling)).toEqual({ errcode: 403, errmsg: 'the record belongs to another shop' });
  });

  it('lists and pages what the caller may see, with the filters', async () => {
    const tag = uniq('shops');
    const a1 = await addOk(merchantA, shop({ name: `${tag} one`, status: 1, provinceId: '330000', cityId: '330100' }));
    const a2 = await addOk(merchantA, shop({ name: `${tag} two`, status: 3, typeId: 5 }));
    const b = await addOk(merchantB, shop({ name: `${tag} far`, merchantId: merchantBId }));
    const ids = async (who: StaffSession, f: object = {}) =>
      ((await t.post(`${P}/queryShopList`, { keywords: tag, ...f }, who.token)).body.data as Array<{ id: number }>).map(
        (s) => s.id,
      );
    expect(await ids(platform)).toEqual([b.id, a2.id, a1.id]);
    expect(await ids(merchantA)).toEqual([a2.id, a1.id]);
    expect(await ids(platform, { merchantId: merchantBId })).toEqual([b.id]);
    expect(await ids(merchantA, { status: 3 })).toEqual([a2.id]);
    expect(await ids(merchantA, { typeId: 5 })).toEqual([a2.id]);
    expect(await ids(merchantA, { provinceId: '330000', cityId: '330100' })).toEqual([a1.id]);
    expect(await ids(merchantA, { name: 'ONE' })).toEqual([a1.id]);
    const page = await t.post(`${P}/queryShopPage`, { keywords: tag, pageSize: 2, pageNum: 2 }, platform.token);
    expect(page.body.data).toEqual({ list: [expect.objectContaining({ id: a1.id, relationList: [] })], total: 3 });
  });

  it('logs add, update and delete', async () => {
    const s = await addOk(merchantA, shop());
    await t.post(`${P}/updateShop`, { id: s.id, name: 'Logged' }, merchantA.token);
    await t.post(`${P}/deleteShop`, { id: s.id }, merchantA.token);
    // only the database shows the operation log
    const rows = await t.db
      .selectFrom('operate_log')
      .select(['module', 'action', 'success'])
      .where('account_id', '=', merchantA.userId)
      .where('biz_id', '=', String(s.id))
      .orderBy('id')
      .execute();
    expect(rows.map((r) => r.action)).toEqual(['新增门店', '修改门店', '删除门店']);
    expect(rows.every((r) => r.module === '门店管理' && r.success)).toBe(true);
  });
});
