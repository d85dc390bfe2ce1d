import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChecker, createCheckerConfig, createMerchant, createShop, uniq } from '../helpers/factories.js';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/** Verifier configuration on the manage channel (spec B 4.2, CheckerConfig of A 2.3). */

const P = '/manage-api/checker';
const ALL = ['checker:read', 'checker:write'];

let t: TestApp;
/** merchant A with shops A1 and A2, a verifier in each shop; merchant B with one verifier */
let org: { merchantA: number; shopA1: number; shopA2: number; merchantB: number; vA1: number; vA2: number; vB: number };
let platform: StaffSession;
let merchantA: StaffSession;
let shopA1: StaffSession;
let merchantB: StaffSession;

beforeAll(async () => {
  t = await createTestApp();
  const merchantA_ = await createMerchant(t.db);
  const shopA1_ = await createShop(t.db, { merchant_id: merchantA_ });
  const shopA2_ = await createShop(t.db, { merchant_id: merchantA_ });
  const merchantB_ = await createMerchant(t.db);
  org = {
    merchantA: merchantA_, shopA1: shopA1_, shopA2: shopA2_, merchantB: merchantB_,
    vA1: (await createChecker(t.db, { shop_id: shopA1_, name: 'Gate keeper A1' })).id,
    vA2: (await createChecker(t.db, { shop_id: shopA2_ })).id,
    vB: (await createChecker(t.db, { merchant_id: merchantB_ })).id,
  };
  platform = await staffSession(t, { kind: 'platform', permissions: ALL });
  merchantA = await staffSession(t, { kind: 'merchant', merchantId: org.merchantA, permissions: ALL });
  shopA1 = await staffSession(t, { kind: 'shop', shopId: org.shopA1, permissions: ALL });
  merchantB = await staffSession(t, { kind: 'merchant', merchantId: org.merchantB, permissions: ALL });
});
afterAll(() => t?.close());

const item = () => uniq('item_').slice(0, 40);
const post = (path: string, body: unknown, who: StaffSession) => t.post(`${P}/${path}`, body, who.token);

async function addOk(who: StaffSession, body: Record<string, unknown>): Promise<number> {
  const res = await post('addCheckerConfig', body, who);
  expect(res.body, res.body.errmsg).toEqual({ errcode: 0, errmsg: 'success' });
  const row = await t.db.selectFrom('checker_config').select('id').where('item', '=', body.item as string).where('is_deleted', '=', false).executeTakeFirstOrThrow();
  return row.id;
}

describe('rejection matrix', () => {
  const validAdd = () => ({ checkerId: org.vA1, configType: 1, item: 'voice' });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/addCheckerConfig`, permission: 'checker:write', validBody: validAdd,
    badInputs: [
      { body: () => ({ configType: 1, item: 'x' }), field: 'checkerId', rule: /checkerId is required/ },
      { body: () => ({ checkerId: org.vA1, item: 'x' }), field: 'configType', rule: /configType is required/ },
      { body: () => ({ checkerId: org.vA1, configType: 1 }), field: 'item', rule: /item is required/ },
      { body: () => ({ ...validAdd(), item: '   ' }), field: 'item' },
      { body: () => ({ ...validAdd(), item: 'x'.repeat(65) }), field: 'item' },
      { body: () => ({ ...validAdd(), value: 'v'.repeat(513) }), field: 'value' },
      { body: () => ({ ...validAdd(), configType: -1 }), field: 'configType' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/updateCheckerConfig`, permission: 'checker:write', validBody: () => ({ id: 1, value: 'on' }),
    badInputs: [{ body: () => ({ value: 'on' }), field: 'id', rule: /id is required/ }, { body: () => ({ id: 1, remark: 'r'.repeat(256) }), field: 'remark' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/deleteCheckerConfig`, permission: 'checker:write', validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({ id: 'one' }), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/getCheckerConfig`, permission: 'checker:read', validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({}), field: 'id', rule: /id is required/ }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/queryCheckerConfigList`, permission: 'checker:read', validBody: () => ({}),
    badInputs: [{ body: () => ({ keywords: 'k'.repeat(65) }), field: 'keywords' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/queryCheckerConfigPage`, permission: 'checker:read', validBody: () => ({}),
    badInputs: [{ body: () => ({ pageSize: 201 }), field: 'pageSize', rule: /between 1 and 200/ }, { body: () => ({ checkerId: 0 }), field: 'checkerId' }],
  });
});

describe('success', () => {
  it('adds, reads, updates and deletes a verifier setting, with an operation log for each write', async () => {
    const it1 = item();
    const id = await addOk(shopA1, { checkerId: org.vA1, configType: 2, item: it1, name: ' Voice ', value: 'on', remark: 'read names aloud' });
    const got = await post('getCheckerConfig', { id }, merchantA);
    expect(got.body).toEqual({
      errcode: 0, errmsg: 'success',
      data: {
        id, checkerId: org.vA1, checkerName: 'Gate keeper A1', name: 'Voice', configType: 2, item: it1, value: 'on', remark: 'read names aloud',
        isDeleted: false, createdTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2} /), updatedTime: expect.stringMatching(/^\d{4}-/),
      },
    });
    const stored = await t.db.selectFrom('checker_config').select(['merchant_id', 'created_by']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(stored).toEqual({ merchant_id: org.merchantA, created_by: shopA1.userId });

    expect((await post('updateCheckerConfig', { id, value: 'off', remark: '' }, merchantA)).body).toEqual({ errcode: 0, errmsg: 'success' });
    const after = (await post('getCheckerConfig', { id }, platform)).body.data;
    expect(after).toMatchObject({ value: 'off', remark: null, name: 'Voice', item: it1, configType: 2 });

    expect((await post('deleteCheckerConfig', { id }, shopA1)).body).toEqual({ errcode: 0, errmsg: 'success' });
    expect((await post('getCheckerConfig', { id }, platform)).body).toEqual({ errcode: 404, errmsg: 'verifier config not found' });
    expect((await post('deleteCheckerConfig', { id }, platform)).body.errcode).toBe(404);

    const logs = await t.db.selectFrom('operate_log').select(['action', 'success']).where('module', '=', '核销员配置').where('biz_id', '=', String(id)).orderBy('id').execute();
    expect(logs.filter((l) => l.success).map((l) => l.action)).toEqual(['新增核销员配置', '修改核销员配置', '删除核销员配置']);
  });

  it('lists and pages by scope and filters, newest first', async () => {
    const tag = uniq('kw');
    const a1 = await addOk(merchantA, { checkerId: org.vA1, configType: 1, item: item(), value: tag });
    const a2 = await addOk(merchantA, { checkerId: org.vA2, configType: 3, item: item(), remark: tag });
    const b = await addOk(merchantB, { checkerId: org.vB, configType: 1, item: item(), name: tag });
    const ids = async (who: StaffSession, body: Record<string, unknown> = {}) =>
      ((await post('queryCheckerConfigList', { keywords: tag, ...body }, who)).body.data as Array<{ id: number }>).map((c) => c.id);
    expect(await ids(platform)).toEqual([b, a2, a1]);
    expect(await ids(merchantA)).toEqual([a2, a1]);
    expect(await ids(shopA1)).toEqual([a1]);
    expect(await ids(merchantB)).toEqual([b]);
    expect(await ids(merchantA, { configType: 3 })).toEqual([a2]);
    expect(await ids(platform, { checkerId: org.vB })).toEqual([b]);
    const page = await post('queryCheckerConfigPage', { keywords: tag, pageSize: 1, pageNum: 2 }, merchantA);
    expect(page.body.data).toEqual({ list: [expect.objectContaining({ id: a1 })], total: 2 });
  });

  it('reaches the verifier\'s app at login (configList)', async () => {
    const db = t.db;
    const v = await createChecker(db, { shop_id: org.shopA1 });
    const it1 = item();
    await addOk(shopA1, { checkerId: v.id, configType: 1, item: it1, value: 'face' });
    const login = await t.post('/app-api/auth/checkerLogin', { mobile: v.mobile, password: v.password });
    expect(login.body.data.configList).toEqual([expect.objectContaining({ checkerId: v.id, item: it1, value: 'face', configType: 1 })]);
  });
});

describe('scoping and conflicts', () => {
  it('refuses a verifier of another merchant or shop with 403, an unknown one with 404', async () => {
    expect((await post('addCheckerConfig', { checkerId: org.vB, configType: 1, item: item() }, merchantA)).body.errcode).toBe(403);
    expect((await post('addCheckerConfig', { checkerId: org.vA2, configType: 1, item: item() }, shopA1)).body.errcode).toBe(403);
    expect((await post('addCheckerConfig', { checkerId: 2_000_000_000, configType: 1, item: item() }, platform)).body)
      .toEqual({ errcode: 404, errmsg: 'verifier (checkerId) not found' });
  });

  it('refuses another merchant\'s or shop\'s setting with 403 on get, update and delete, and moving one to a foreign verifier', async () => {
    const id = await addOk(merchantA, { checkerId: org.vA2, configType: 1, item: item() });
    for (const [path, body] of [['getCheckerConfig', { id }], ['updateCheckerConfig', { id, value: 'x' }], ['deleteCheckerConfig', { id }]] as const) {
      expect((await post(path, body, merchantB)).body.errcode, path).toBe(403);
      expect((await post(path, body, shopA1)).body.errcode, path).toBe(403);
    }
    expect((await post('updateCheckerConfig', { id, checkerId: org.vB }, merchantA)).body.errcode).toBe(403);
    const row = await t.db.selectFrom('checker_config').select(['checker_id', 'is_deleted', 'value']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toEqual({ checker_id: org.vA2, is_deleted: false, value: null });
  });

  it('keeps one value per item and verifier (409); a deleted setting frees its item; concurrent adds let one through', async () => {
    const it1 = item();
    const first = await addOk(merchantA, { checkerId: org.vA1, configType: 1, item: it1 });
    const dup = await post('addCheckerConfig', { checkerId: org.vA1, configType: 2, item: it1 }, merchantA);
    expect(dup.body).toEqual({ errcode: 409, errmsg: `item "${it1}" is already configured for this verifier` });
    // Another verifier may use the same item.
    expect((await post('addCheckerConfig', { checkerId: org.vA2, configType: 1, item: it1 }, merchantA)).body.errcode).toBe(0);
    const other = await createCheckerConfig(t.db, { checker_id: org.vA1, item: item() });
    expect((await post('updateCheckerConfig', { id: other, item: it1 }, merchantA)).body.errcode).toBe(409);
    await post('deleteCheckerConfig', { id: first }, merchantA);
    expect((await post('addCheckerConfig', { checkerId: org.vA1, configType: 1, item: it1 }, merchantA)).body.errcode).toBe(0);

    const it2 = item();
    const answers = await Promise.all([1, 2, 3].map(() => post('addCheckerConfig', { checkerId: org.vA1, configType: 1, item: it2 }, merchantA)));
    expect(answers.map((a) => a.body.errcode).sort()).toEqual([0, 409, 409]);
  });
});
