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
    merchantA: merchantA_,
    shopA1: shopA1_,
    shopA2: shopA2_,
    merchantB: merchantB_,
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
  const row = await t.db
    .selectFrom('checker_config')
    .select('id')
    .where('item', '=', body.item as string)
    .where('is_deleted', '=', false)
    .executeTakeFirstOrThrow();
  return row.id;
}

describe('rejection matrix', () => {
  const validAdd = () => ({ checkerId: org.vA1, configType: 1, item: 'voice' });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/addCheckerConfig`,
    permission: 'checker:write',
    validBody: validAdd,
    // Nothing is required (spec B 2.2 `{name}`): the "smallest requests" tests below add `{name}` and `{}`.
    badInputs: [
      { body: () => ({ ...validAdd(), checkerId: 0 }), field: 'checkerId' },
      { body: () => ({ ...validAdd(), configType: 'one' }), field: 'configType' },
      { body: () => ({ ...validAdd(), name: 'n'.repeat(65) }), field: 'name' },
      { body: () => ({ ...validAdd(), item: '   ' }), field: 'item' },
      { body: () => ({ ...validAdd(), item: 'x'.repeat(65) }), field: 'item' },
      { body: () => ({ ...validAdd(), value: 'v'.repeat(513) }), field: 'value' },
      { body: () => ({ ...validAdd(), configType: -1 }), field: 'configType' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/updateCheckerConfig`,
    permission: 'checker:write',
    validBody: () => ({ id: 1, value: 'on' }),
    badInputs: [
      { body: () => ({ value: 'on' }), field: 'id', rule: /id is required/ },
      { body: () => ({ id: 1, remark: 'r'.repeat(256) }), field: 'remark' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/deleteCheckerConfig`,
    permission: 'checker:write',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({ id: 'one' }), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/getCheckerConfig`,
    permission: 'checker:read',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({}), field: 'id', rule: /id is required/ }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/queryCheckerConfigList`,
    permission: 'checker:read',
    validBody: () => ({}),
    badInputs: [{ body: () => ({ keywords: 'k'.repeat(65) }), field: 'keywords' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/queryCheckerConfigPage`,
    permission: 'checker:read',
    validBody: () => ({}),
    badInputs: [
      { body: () => ({ configType: 10_000 }), field: 'configType' },
      { body: () => ({ checkerId: 0 }), field: 'checkerId' },
    ],
  });
});

describe('success', () => {
  it('adds, reads, updates and deletes a verifier setting, with an operation log for each write', async () => {
    const it1 = item();
    const id = await addOk(shopA1, {
      checkerId: org.vA1,
      configType: 2,
      item: it1,
      name: ' Voice ',
      value: 'on',
      remark: 'read names aloud',
    });
    const got = await post('getCheckerConfig', { id }, merchantA);
    expect(got.body).toEqual({
      errcode: 0,
      errmsg: 'success',
      data: {
        id,
        checkerId: org.vA1,
        checkerName: 'Gate keeper A1',
        merchantId: org.merchantA,
        shopId: org.shopA1,
        name: 'Voice',
        configType: 2,
        item: it1,
        value: 'on',
        remark: 'read names aloud',
        isDeleted: false,
        createdTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2} /),
        updatedTime: expect.stringMatching(/^\d{4}-/),
      },
    });
    const stored = await t.db
      .selectFrom('checker_config')
      .select(['merchant_id', 'shop_id', 'created_by'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(stored).toEqual({ merchant_id: org.merchantA, shop_id: org.shopA1, created_by: shopA1.userId });

    expect((await post('updateCheckerConfig', { id, value: 'off', remark: '' }, merchantA)).body).toEqual({
      errcode: 0,
      errmsg: 'success',
    });
    const after = (await post('getCheckerConfig', { id }, platform)).body.data;
    expect(after).toMatchObject({ value: 'off', remark: null, name: 'Voice', item: it1, configType: 2 });

    expect((await post('deleteCheckerConfig', { id }, shopA1)).body).toEqual({ errcode: 0, errmsg: 'success' });
    expect((await post('getCheckerConfig', { id }, platform)).body).toEqual({
      errcode: 404,
      errmsg: 'verifier config not found',
    });
    expect((await post('deleteCheckerConfig', { id }, platform)).body.errcode).toBe(404);

    const logs = await t.db
      .selectFrom('operate_log')
      .select(['action', 'success'])
      .where('module', '=', '核销员配置')
      .where('biz_id', '=', String(id))
      .orderBy('id')
      .execute();
    expect(logs.filter((l) => l.success).map((l) => l.action)).toEqual([
      '新增核销员配置',
      '修改核销员配置',
      '删除核销员配置',
    ]);
  });

  it('lists and pages by scope and filters, newest first', async () => {
    const tag = uniq('kw');
    const a1 = await addOk(merchantA, { checkerId: org.vA1, configType: 1, item: item(), value: tag });
    const a2 = await addOk(merchantA, { checkerId: org.vA2, configType: 3, item: item(), remark: tag });
    const b = await addOk(merchantB, { checkerId: org.vB, configType: 1, item: item(), name: tag });
    const ids = async (who: StaffSession, body: Record<string, unknown> = {}) =>
      ((await post('queryCheckerConfigList', { keywords: tag, ...body }, who)).body.data as Array<{ id: number }>).map(
        (c) => c.id,
      );
    expect(await ids(platform)).toEqual([b, a2, a1]);
    expect(await ids(merchantA)).toEqual([a2, a1]);
    expect(await ids(shopA1)).toEqual([a1]);
    expect(await ids(merchantB)).toEqual([b]);
    expect(await ids(merchantA, { configType: 3 })).toEqual([a2]);
    expect(await ids(platform, { checkerId: org.vB })).toEqual([b]);
    const page = await post('queryCheckerConfigPage', { keywords: tag, pageSize: 1, pageNum: 2 }, merchantA);
    expect(page.body.data).toEqual({ list: [expect.objectContaining({ id: a1 })], total: 2 });
  });

  it("reaches the verifier's app at login (configList)", async () => {
    const db = t.db;
    const v = await createChecker(db, { shop_id: org.shopA1 });
    const it1 = item();
    await addOk(shopA1, { checkerId: v.id, configType: 1, item: it1, value: 'face' });
    const login = await t.post('/app-api/auth/checkerLogin', { mobile: v.mobile, password: v.password });
    expect(login.body.data.configList).toEqual([
      expect.objectContaining({ checkerId: v.id, item: it1, value: 'face', configType: 1 }),
    ]);
  });
});

describe('scoping and conflicts', () => {
  it('refuses a verifier of another merchant or shop with 403, an unknown one with 404', async () => {
    expect(
      (await post('addCheckerConfig', { checkerId: org.vB, configType: 1, item: item() }, merchantA)).body.errcode,
    ).toBe(403);
    expect(
      (await post('addCheckerConfig', { checkerId: org.vA2, configType: 1, item: item() }, shopA1)).body.errcode,
    ).toBe(403);
    expect(
      (await post('addCheckerConfig', { checkerId: 2_000_000_000, configType: 1, item: item() }, platform)).body,
    ).toEqual({ errcode: 404, errmsg: 'verifier (checkerId) not found' });
  });

  it("refuses another merchant's or shop's setting with 403 on get, update and delete, and moving one to a foreign verifier", async () => {
    const id = await addOk(merchantA, { checkerId: org.vA2, configType: 1, item: item() });
    for (const [path, body] of [
      ['getCheckerConfig', { id }],
      ['updateCheckerConfig', { id, value: 'x' }],
      ['deleteCheckerConfig', { id }],
    ] as const) {
      expect((await post(path, body, merchantB)).body.errcode, path).toBe(403);
      expect((await post(path, body, shopA1)).body.errcode, path).toBe(403);
    }
    expect((await post('updateCheckerConfig', { id, checkerId: org.vB }, merchantA)).body.errcode).toBe(403);
    const row = await t.db
      .selectFrom('checker_config')
      .select(['checker_id', 'is_deleted', 'value'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ checker_id: org.vA2, is_deleted: false, value: null });
  });

  it('keeps one value per item and verifier (409); a deleted setting frees its item; concurrent adds let one through', async () => {
    const it1 = item();
    const first = await addOk(merchantA, { checkerId: org.vA1, configType: 1, item: it1 });
    const dup = await post('addCheckerConfig', { checkerId: org.vA1, configType: 2, item: it1 }, merchantA);
    expect(dup.body).toEqual({ errcode: 409, errmsg: `item "${it1}" is already configured for this verifier` });
    // Another verifier may use the same item.
    expect(
      (await post('addCheckerConfig', { checkerId: org.vA2, configType: 1, item: it1 }, merchantA)).body.errcode,
    ).toBe(0);
    const other = await createCheckerConfig(t.db, { checker_id: org.vA1, item: item() });
    expect((await post('updateCheckerConfig', { id: other, item: it1 }, merchantA)).body.errcode).toBe(409);
    await post('deleteCheckerConfig', { id: first }, merchantA);
    expect(
      (await post('addCheckerConfig', { checkerId: org.vA1, configType: 1, item: it1 }, merchantA)).body.errcode,
    ).toBe(0);

    const it2 = item();
    const answers = await Promise.all(
      [1, 2, 3].map(() => post('addCheckerConfig', { checkerId: org.vA1, configType: 1, item: it2 }, merchantA)),
    );
    expect(answers.map((a) => a.body.errcode).sort()).toEqual([0, 409, 409]);
  });
});

/**
 * The spec's smallest add request (B 2.2: `{name}`, nothing starred): a setting without a verifier is a
 * default of the caller's shop, merchant or (platform) of every verifier. Fresh merchants here, and the
 * platform's defaults deleted again, so the tests above see no defaults.
 */
describe("the spec's smallest requests: defaults without a verifier", () => {
  let m: { merchant: number; shop1: number; shop2: number; other: number };
  let staff: { merchant: StaffSession; shop1: StaffSession; other: StaffSession };
  const row = (id: number) =>
    t.db
      .selectFrom('checker_config')
      .select([
        'checker_id',
        'merchant_id',
        'shop_id',
        'item',
        'name',
        'config_type',
        'value',
        'created_by',
        'is_deleted',
      ])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const lastId = async () =>
    (
      await t.db
        .selectFrom('checker_config')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirstOrThrow()
    ).id as number;
  async function addDefault(who: StaffSession, body: Record<string, unknown>): Promise<number> {
    const res = await post('addCheckerConfig', body, who);
    expect(res.body, res.body.errmsg).toEqual({ errcode: 0, errmsg: 'success' });
    return lastId();
  }

  beforeAll(async () => {
    const merchant = await createMerchant(t.db);
    m = {
      merchant,
      shop1: await createShop(t.db, { merchant_id: merchant }),
      shop2: await createShop(t.db, { merchant_id: merchant }),
      other: await createMerchant(t.db),
    };
    staff = {
      merchant: await staffSession(t, { kind: 'merchant', merchantId: m.merchant, permissions: ALL }),
      shop1: await staffSession(t, { kind: 'shop', shopId: m.shop1, permissions: ALL }),
      other: await staffSession(t, { kind: 'merchant', merchantId: m.other, permissions: ALL }),
    };
  });

  it("accepts {name} from platform, merchant and shop users: item = the name, configType 0, owned by the caller's scope, logged", async () => {
    const name = uniq('voice ').slice(0, 40);
    const byPlatform = await addDefault(platform, { name });
    const byMerchant = await addDefault(staff.merchant, { name });
    const byShop = await addDefault(staff.shop1, { name: ` ${name} ` });
    try {
      const base = { checker_id: null, item: name, name, config_type: 0, value: null, is_deleted: false };
      expect(await row(byPlatform)).toEqual({ ...base, merchant_id: null, shop_id: null, created_by: platform.userId });
      expect(await row(byMerchant)).toEqual({
        ...base,
        merchant_id: m.merchant,
        shop_id: null,
        created_by: staff.merchant.userId,
      });
      expect(await row(byShop)).toEqual({
        ...base,
        merchant_id: m.merchant,
        shop_id: m.shop1,
        created_by: staff.shop1.userId,
      });
      expect((await post('getCheckerConfig', { id: byShop }, staff.merchant)).body.data).toMatchObject({
        id: byShop,
        checkerId: null,
        checkerName: null,
        merchantId: m.merchant,
        shopId: m.shop1,
        name,
        item: name,
        configType: 0,
      });
      const logs = await t.db
        .selectFrom('operate_log')
        .select(['account_id', 'action', 'success'])
        .where('module', '=', '核销员配置')
        .where('biz_id', 'in', [String(byPlatform), String(byMerchant), String(byShop)])
        .orderBy('id')
        .execute();
      expect(logs).toEqual(
        [platform, staff.merchant, staff.shop1].map((s) => ({
          account_id: s.userId,
          action: '新增核销员配置',
          success: true,
        })),
      );
    } finally {
      await post('deleteCheckerConfig', { id: byPlatform }, platform);
    }
  });

  it('accepts {} too: a default without an item (none is unique), shown as item ""', async () => {
    const first = await addDefault(staff.merchant, {});
    const second = await addDefault(staff.merchant, {});
    expect(await row(first)).toMatchObject({
      checker_id: null,
      merchant_id: m.merchant,
      shop_id: null,
      item: null,
      name: null,
      config_type: 0,
    });
    expect(second).toBeGreaterThan(first);
    expect((await post('getCheckerConfig', { id: first }, staff.merchant)).body.data).toMatchObject({
      checkerId: null,
      item: '',
      name: null,
      configType: 0,
    });
    // An item set later makes it a keyed default like any other.
    expect(
      (await post('updateCheckerConfig', { id: first, item: 'later', value: 'v' }, staff.merchant)).body.errcode,
    ).toBe(0);
    expect(await row(first)).toMatchObject({ checker_id: null, merchant_id: m.merchant, item: 'later', value: 'v' });
    for (const id of [first, second])
      expect((await post('deleteCheckerConfig', { id }, staff.merchant)).body.errcode).toBe(0);
  });

  it("keeps one default per item and owner (409), beside the verifiers' own settings of that item", async () => {
    const name = uniq('dup ').slice(0, 40);
    const first = await addDefault(staff.merchant, { name });
    expect((await post('addCheckerConfig', { name }, staff.merchant)).body).toEqual({
      errcode: 409,
      errmsg: `item "${name}" already has a default for the verifiers of this merchant`,
    });
    expect((await post('addCheckerConfig', { item: name, configType: 3 }, staff.merchant)).body.errcode).toBe(409);
    expect((await post('addCheckerConfig', { name }, staff.shop1)).body.errcode).toBe(0);
    expect((await post('addCheckerConfig', { name }, staff.shop1)).body).toEqual({
      errcode: 409,
      errmsg: `item "${name}" already has a default for the verifiers of this shop`,
    });
    expect((await post('addCheckerConfig', { name }, staff.other)).body.errcode).toBe(0);
    const v = await createChecker(t.db, { shop_id: m.shop1 });
    expect((await post('addCheckerConfig', { checkerId: v.id, name }, staff.merchant)).body.errcode).toBe(0);
    // Renaming another default onto the item is refused too; a deleted default frees it.
    const other = await addDefault(staff.merchant, { name: uniq('other ').slice(0, 40) });
    expect((await post('updateCheckerConfig', { id: other, item: name }, staff.merchant)).body.errcode).toBe(409);
    await post('deleteCheckerConfig', { id: first }, staff.merchant);
    expect((await post('updateCheckerConfig', { id: other, item: name }, staff.merchant)).body.errcode).toBe(0);
    const platformName = uniq('p ').slice(0, 40);
    const p = await addDefault(platform, { name: platformName });
    try {
      expect((await post('addCheckerConfig', { name: platformName }, platform)).body).toEqual({
        errcode: 409,
        errmsg: `item "${platformName}" already has a default for every verifier`,
      });
    } finally {
      await post('deleteCheckerConfig', { id: p }, platform);
    }
  });

  it("scopes defaults: the merchant manages its shops' defaults, a shop only its own, strangers none (403); lists filter", async () => {
    const tag = uniq('scope').slice(0, 30);
    const ofMerchant = await addDefault(staff.merchant, { name: `${tag} m`, value: tag });
    const ofShop = await addDefault(staff.shop1, { name: `${tag} s`, value: tag });
    const ofOther = await addDefault(staff.other, { name: `${tag} o`, value: tag });
    for (const [path, body] of [
      ['getCheckerConfig', { id: ofMerchant }],
      ['updateCheckerConfig', { id: ofMerchant, value: 'x' }],
      ['deleteCheckerConfig', { id: ofMerchant }],
    ] as const) {
      expect((await post(path, body, staff.shop1)).body, path).toEqual({
        errcode: 403,
        errmsg: 'the record belongs to another shop',
      });
      expect((await post(path, body, staff.other)).body, path).toEqual({
        errcode: 403,
        errmsg: 'the record belongs to another merchant',
      });
    }
    expect(
      (await post('updateCheckerConfig', { id: ofShop, remark: 'by the merchant' }, staff.merchant)).body.errcode,
    ).toBe(0);
    const ids = async (who: StaffSession) =>
      ((await post('queryCheckerConfigList', { keywords: tag }, who)).body.data as Array<{ id: number }>).map(
        (c) => c.id,
      );
    expect(await ids(platform)).toEqual([ofOther, ofShop, ofMerchant]);
    expect(await ids(staff.merchant)).toEqual([ofShop, ofMerchant]);
    expect(await ids(staff.shop1)).toEqual([ofShop]);
    expect(await ids(staff.other)).toEqual([ofOther]);
    // Naming a verifier turns a default into that verifier's setting, within the caller's scope only.
    const foreign = await createChecker(t.db, { merchant_id: m.other });
    expect(
      (await post('updateCheckerConfig', { id: ofShop, checkerId: foreign.id }, staff.merchant)).body.errcode,
    ).toBe(403);
    const v = await createChecker(t.db, { shop_id: m.shop2 });
    expect((await post('updateCheckerConfig', { id: ofShop, checkerId: v.id }, staff.merchant)).body.errcode).toBe(0);
    expect(await row(ofShop)).toMatchObject({ checker_id: v.id, merchant_id: m.merchant, shop_id: m.shop2 });
    expect(await ids(staff.shop1)).toEqual([]);
  });

  it("reaches the app at login: per item the verifier's own setting, else its shop's, its merchant's, the platform's default", async () => {
    const k = (s: string) => uniq(s).slice(0, 40);
    const items = { p: k('p_'), m: k('m_'), s: k('s_'), v: k('v_') };
    const platformIds = [
      await addDefault(platform, { item: items.p, value: 'platform' }),
      await addDefault(platform, { item: items.m, value: 'platform' }),
    ];
    try {
      await addDefault(staff.merchant, { item: items.m, value: 'merchant', configType: 2 });
      await addDefault(staff.merchant, { item: items.s, value: 'merchant' });
      await addDefault(staff.shop1, { item: items.s, value: 'shop' });
      await addDefault(staff.shop1, { item: items.v, value: 'shop' });
      const inShop1 = await createChecker(t.db, { shop_id: m.shop1 });
      const inShop2 = await createChecker(t.db, { shop_id: m.shop2 });
      const ofMerchant = await createChecker(t.db, { merchant_id: m.merchant });
      const elsewhere = await createChecker(t.db, { merchant_id: m.other });
      await addOk(staff.shop1, { checkerId: inShop1.id, configType: 5, item: items.v, value: 'own' });
      const configs = async (v: { id: number; mobile: string; password: string }) => {
        const login = await t.post('/app-api/auth/checkerLogin', { mobile: v.mobile, password: v.password });
        expect(login.body.errcode, login.body.errmsg).toBe(0);
        const list = login.body.data.configList as Array<{
          checkerId: number;
          item: string;
          value: string;
          configType: number;
        }>;
        expect(list.every((c) => c.checkerId === v.id)).toBe(true);
        return Object.fromEntries(
          list.filter((c) => Object.values(items).includes(c.item)).map((c) => [c.item, c.value]),
        );
      };
      expect(await configs(inShop1)).toEqual({
        [items.p]: 'platform',
        [items.m]: 'merchant',
        [items.s]: 'shop',
        [items.v]: 'own',
      });
      expect(await configs(inShop2)).toEqual({ [items.p]: 'platform', [items.m]: 'merchant', [items.s]: 'merchant' });
      expect(await configs(ofMerchant)).toEqual({
        [items.p]: 'platform',
        [items.m]: 'merchant',
        [items.s]: 'merchant',
      });
      expect(await configs(elsewhere)).toEqual({ [items.p]: 'platform', [items.m]: 'platform' });
    } finally {
      for (const id of platformIds) await post('deleteCheckerConfig', { id }, platform);
    }
  });
});
