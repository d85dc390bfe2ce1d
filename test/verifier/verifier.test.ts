import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createChecker,
  createMerchant,
  createShop,
  createSku,
  createSkuEntrance,
  randomMobile,
  uniq,
} from '../helpers/factories.js';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const C = '/manage-api/checker';
const ALL = ['checker:read', 'checker:write'];

let t: TestApp;
let platform: StaffSession;
let merchantA: StaffSession;
let shopA1: StaffSession;
let merchantB: StaffSession;
let org: {
  merchantA: number;
  shopA1: number;
  shopA2: number;
  merchantB: number;
  skuA1: number;
  gateA1: number;
  gateA1b: number;
  skuA2: number;
  skuB: number;
};

beforeAll(async () => {
  t = await createTestApp();
  const mA = await createMerchant(t.db);
  const mB = await createMerchant(t.db);
  const sA1 = await createShop(t.db, { merchant_id: mA });
  const sA2 = await createShop(t.db, { merchant_id: mA });
  const skuA1 = await createSku(t.db, { shop_id: sA1, merchant_id: mA });
  org = {
    merchantA: mA,
    shopA1: sA1,
    shopA2: sA2,
    merchantB: mB,
    skuA1,
    gateA1: await createSkuEntrance(t.db, { sku_id: skuA1 }),
    gateA1b: await createSkuEntrance(t.db, { sku_id: skuA1 }),
    skuA2: await createSku(t.db, { shop_id: sA2, merchant_id: mA }),
    skuB: await createSku(t.db, { merchant_id: mB }),
  };
  platform = await staffSession(t, { kind: 'platform', permissions: ALL });
  merchantA = await staffSession(t, { kind: 'merchant', merchantId: mA, permissions: ALL });
  shopA1 = await staffSession(t, { kind: 'shop', shopId: sA1, permissions: ALL });
  merchantB = await staffSession(t, { kind: 'merchant', merchantId: mB, permissions: ALL });
});
afterAll(() => t?.close());

type CheckerOut = {
  id: number;
  mobile: string;
  password: string;
  merchantId: number;
  shopId: number | null;
  status: number;
  relations: Array<{ skuId: number; entranceId: number | null }>;
};

async function addOk(who: StaffSession, body: Record<string, unknown>): Promise<CheckerOut> {
  const res = await t.post(`${C}/addChecker`, { mobile: randomMobile(), name: 'Gate keeper', ...body }, who.token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data;
}
const login = (mobile: string, password: string) => t.post('/app-api/auth/checkerLogin', { mobile, password });

describe('rejection matrix', () => {
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${C}/addChecker`,
    permission: 'checker:write',
    validBody: () => ({ mobile: randomMobile(), name: 'x', merchantId: org.merchantA }),
    badInputs: [
      { body: () => ({ name: 'x', merchantId: org.merchantA }), field: 'mobile', rule: /required/ },
      { body: () => ({ mobile: '12345678901', name: 'x', merchantId: org.merchantA }), field: 'mobile' },
      { body: () => ({ mobile: randomMobile(), merchantId: org.merchantA }), field: 'name' },
      { body: () => ({ mobile: randomMobile(), name: '  ', merchantId: org.merchantA }), field: 'name' },
      { body: () => ({ mobile: randomMobile(), name: 'x' }), field: 'merchantId', rule: /required/ },
      {
        body: () => ({ mobile: randomMobile(), name: 'x', merchantId: org.merchantA, relations: [{ entranceId: 1 }] }),
        field: 'relations[0].skuId',
      },
      {
        body: () => ({ mobile: randomMobile(), name: 'x', merchantId: org.merchantA, sskFlag: 'yes' }),
        field: 'sskFlag',
      },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${C}/updateChecker`,
    permission: 'checker:write',
    validBody: () => ({ id: 1, mobile: randomMobile(), name: 'x' }),
    badInputs: [{ body: () => ({ mobile: randomMobile(), name: 'x' }), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${C}/updateCheckerStatus`,
    permission: 'checker:write',
    validBody: () => ({ id: 1, status: 0 }),
    badInputs: [{ body: () => ({ id: 1, status: 9 }), field: 'status' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${C}/resetCheckerPassword`,
    permission: 'checker:write',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({}), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${C}/updateCheckerRelation`,
    permission: 'checker:write',
    validBody: () => ({ checkerId: 1, relations: [] }),
    badInputs: [
      { body: () => ({ checkerId: 1 }), field: 'relations' },
      { body: () => ({ relations: [] }), field: 'checkerId' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${C}/queryCheckerRelationList`,
    permission: 'checker:read',
    validBody: () => ({ checkerId: 1 }),
    badInputs: [{ body: () => ({}), field: 'checkerId' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${C}/getChecker`,
    permission: 'checker:read',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({ id: -1 }), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${C}/queryCheckerList`,
    permission: 'checker:read',
    validBody: () => ({}),
    badInputs: [{ body: () => ({ skuId: 0 }), field: 'skuId' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${C}/queryCheckerPage`,
    permission: 'checker:read',
    validBody: () => ({}),
    badInputs: [{ body: () => ({ pageSize: 1.5 }), field: 'pageSize' }],
  });
});

describe('verifiers', () => {
  it('adds a verifier with relations and a generated password it logs in with on the app channel', async () => {
    const c = await addOk(shopA1, {
      sskFlag: true,
      relations: [
        { skuId: org.skuA1, entranceId: org.gateA1 },
        { skuId: org.skuA1, entranceId: org.gateA1 },
      ],
    });
    expect(c).toMatchObject({
      merchantId: org.merchantA,
      shopId: org.shopA1,
      status: 1,
      sskFlag: true,
      relations: [{ skuId: org.skuA1, entranceId: org.gateA1 }],
    });
    expect(c.password).toHaveLength(12);
    const res = await login(c.mobile, c.password);
    expect(res.body.errcode, res.body.errmsg).toBe(0);
    expect(res.body.data.skuInfo).toEqual([
      expect.objectContaining({ id: org.skuA1, entrenceList: [expect.objectContaining({ id: org.gateA1 })] }),
    ]);
  });

  it("relates a verifier only to its own merchant's (or shop's) SKUs and their gates", async () => {
    const c = await addOk(merchantA, {});
    const set = (relations: object[]) =>
      t.post(`${C}/updateCheckerRelation`, { checkerId: c.id, relations }, merchantA.token);
    const ok = await set([
      { skuId: org.skuA1 },
      { skuId: org.skuA2, entranceId: null },
      { skuId: org.skuA1, entranceId: org.gateA1b },
    ]);
    expect(ok.body.data.map((r: { skuId: number; entranceId: number | null }) => [r.skuId, r.entranceId])).toEqual([
      [org.skuA1, org.gateA1b],
      [org.skuA1, null],
      [org.skuA2, null],
    ]);
    expect((await set([{ skuId: org.skuB }])).body).toEqual({
      errcode: 404,
      errmsg: `SKU ${org.skuB} of the verifier's merchant or shop not found`,
    });
    const otherGate = await createSkuEntrance(t.db, { sku_id: org.skuA2 });
    expect((await set([{ skuId: org.skuA1, entranceId: otherGate }])).body).toEqual({
      errcode: 404,
      errmsg: `entrance ${otherGate} of SKU ${org.skuA1} not found`,
    });
    // A shop's verifier: only that shop's SKUs.
    const s = await addOk(merchantA, { shopId: org.shopA1 });
    expect(
      (
        await t.post(
          `${C}/updateCheckerRelation`,
          { checkerId: s.id, relations: [{ skuId: org.skuA2 }] },
          merchantA.token,
        )
      ).body.errcode,
    ).toBe(404);
    // The refused replacements left the earlier relations as they were.
    const still = await t.post(`${C}/queryCheckerRelationList`, { checkerId: c.id }, merchantA.token);
    expect(still.body.data).toHaveLength(3);
    expect((await set([])).body.data).toEqual([]);
  });

  it('answers 409 when an enabled verifier already has the mobile, on add, update and enable', async () => {
    const mobile = randomMobile();
    const first = await addOk(merchantA, { mobile });
    const dup = await t.post(`${C}/addChecker`, { mobile, name: 'Twin', merchantId: org.merchantB }, platform.token);
    expect(dup.body).toEqual({
      errcode: 409,
      errmsg: `an enabled verifier already uses mobile ${mobile}: disable that one first`,
    });
    const other = await addOk(merchantA, {});
    expect(
      (await t.post(`${C}/updateChecker`, { id: other.id, mobile, name: 'x' }, merchantA.token)).body.errcode,
    ).toBe(409);
    // Disabled, the mobile is free; enabling the first again clashes with its successor.
    expect((await t.post(`${C}/updateCheckerStatus`, { id: first.id, status: 0 }, merchantA.token)).body.errcode).toBe(
      0,
    );
    const second = await addOk(merchantA, { mobile });
    expect((await t.post(`${C}/updateCheckerStatus`, { id: first.id, status: 1 }, merchantA.token)).body.errcode).toBe(
      409,
    );
    expect((await login(mobile, second.password)).body.errcode).toBe(0);
    const racing = randomMobile();
    const answers = await Promise.all(
      [1, 2, 3].map(() => t.post(`${C}/addChecker`, { mobile: racing, name: 'Racer' }, merchantA.token)),
    );
    expect(answers.map((a) => a.body.errcode).sort()).toEqual([0, 409, 409]);
  });

  it("disabling or resetting the password ends the verifier's sessions at once", async () => {
    const c = await addOk(merchantA, {});
    const token = (await login(c.mobile, c.password)).body.data.accessToken;
    const reset = await t.post(`${C}/resetCheckerPassword`, { id: c.id }, merchantA.token);
    expect(reset.body.data.password).toHaveLength(12);
    expect((await t.post('/app-api/auth/checkerLogout', {}, token)).body.errcode).toBe(401);
    expect((await login(c.mobile, c.password)).body.errcode).toBe(1_002_000_000);
    const token2 = (await login(c.mobile, reset.body.data.password)).body.data.accessToken;
    expect((await t.post(`${C}/updateCheckerStatus`, { id: c.id, status: 0 }, merchantA.token)).body.errcode).toBe(0);
    expect((await t.post('/app-api/auth/checkerLogout', {}, token2)).body.errcode).toBe(401);
    expect((await login(c.mobile, reset.body.data.password)).body.errcode).toBe(1_002_000_001);
  });

  it('updates name, mobile and the kiosk flag', async () => {
    const c = await addOk(merchantA, { sskFlag: true });
    const mobile = randomMobile();
    expect(
      (await t.post(`${C}/updateChecker`, { id: c.id, mobile, name: ' New name ' }, merchantA.token)).body.errcode,
    ).toBe(0);
    const got = (await t.post(`${C}/getChecker`, { id: c.id }, merchantA.token)).body.data;
    expect(got).toMatchObject({ mobile, name: 'New name', sskFlag: true });
    expect(
      (await t.post(`${C}/updateChecker`, { id: c.id, mobile, name: 'New name', sskFlag: false }, merchantA.token)).body
        .errcode,
    ).toBe(0);
    expect((await t.post(`${C}/getChecker`, { id: c.id }, merchantA.token)).body.data.sskFlag).toBe(false);
  });

  it("refuses a verifier under a disabled merchant, and a place outside the caller's scope", async () => {
    const off = await createMerchant(t.db, { status: 0 });
    expect(
      (await t.post(`${C}/addChecker`, { mobile: randomMobile(), name: 'x', merchantId: off }, platform.token)).body
        .errcode,
    ).toBe(1_022_000_001);
    const refused = { errcode: 403, errmsg: 'you may only add verifiers to your own merchant or shop' };
    expect(
      (
        await t.post(
          `${C}/addChecker`,
          { mobile: randomMobile(), name: 'x', merchantId: org.merchantB },
          merchantA.token,
        )
      ).body,
    ).toEqual(refused);
    expect(
      (await t.post(`${C}/addChecker`, { mobile: randomMobile(), name: 'x', shopId: org.shopA2 }, shopA1.token)).body,
    ).toEqual(refused);
    expect(
      (await t.post(`${C}/addChecker`, { mobile: randomMobile(), name: 'x', merchantId: 999_999_999 }, platform.token))
        .body.errcode,
    ).toBe(404);
  });
});

describe('scoping and paging', () => {
  it("shows and changes only the caller's merchant's or shop's verifiers", async () => {
    const tag = uniq('v');
    const a = await addOk(merchantA, { name: `${tag} a` });
    const a1 = await addOk(merchantA, { name: `${tag} a1`, shopId: org.shopA1, relations: [{ skuId: org.skuA1 }] });
    const b = await addOk(merchantB, { name: `${tag} b` });
    const ids = async (who: StaffSession, extra: object = {}) =>
      (
        (await t.post(`${C}/queryCheckerPage`, { name: tag, ...extra }, who.token)).body.data.list as Array<{
          id: number;
        }>
      ).map((x) => x.id);
    expect(await ids(platform)).toEqual([b.id, a1.id, a.id]);
    expect(await ids(merchantA)).toEqual([a1.id, a.id]);
    expect(await ids(shopA1)).toEqual([a1.id]);
    expect(await ids(merchantA, { skuId: org.skuA1 })).toEqual([a1.id]);
    const list = await t.post(`${C}/queryCheckerList`, { keywords: tag, status: 1 }, merchantB.token);
    expect(list.body.data.map((x: { id: number }) => x.id)).toEqual([b.id]);
    expect((await t.post(`${C}/getChecker`, { id: b.id }, merchantA.token)).body).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another merchant',
    });
    expect((await t.post(`${C}/getChecker`, { id: a.id }, shopA1.token)).body).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another shop',
    });
    expect((await t.post(`${C}/updateCheckerStatus`, { id: b.id, status: 0 }, merchantA.token)).body.errcode).toBe(403);
    expect((await t.post(`${C}/resetCheckerPassword`, { id: b.id }, merchantA.token)).body.errcode).toBe(403);
    expect(
      (await t.post(`${C}/updateCheckerRelation`, { checkerId: b.id, relations: [] }, merchantA.token)).body.errcode,
    ).toBe(403);
    expect((await t.post(`${C}/getChecker`, { id: 999_999_999 }, platform.token)).body).toEqual({
      errcode: 404,
      errmsg: 'verifier not found',
    });
  });

  it('pages with the total', async () => {
    const tag = uniq('pg');
    for (let i = 0; i < 3; i++) await addOk(merchantA, { name: `${tag} ${i}` });
    const page = await t.post(`${C}/queryCheckerPage`, { keywords: tag, pageSize: 2, pageNum: 2 }, merchantA.token);
    expect(page.body.data.total).toBe(3);
    expect(page.body.data.list).toHaveLength(1);
  });
});

describe('operation log', () => {
  it('records each write', async () => {
    const c = await addOk(merchantA, {});
    await t.post(`${C}/updateChecker`, { id: c.id, mobile: c.mobile, name: 'n' }, merchantA.token);
    await t.post(`${C}/updateCheckerRelation`, { checkerId: c.id, relations: [{ skuId: org.skuA1 }] }, merchantA.token);
    await t.post(`${C}/resetCheckerPassword`, { id: c.id }, merchantA.token);
    await t.post(`${C}/updateCheckerStatus`, { id: c.id, status: 0 }, merchantA.token);
    const dupMobile = (await createChecker(t.db, { merchant_id: org.merchantA })).mobile;
    await t.post(`${C}/updateChecker`, { id: c.id, mobile: dupMobile, name: 'n' }, merchantA.token);
    const rows = await t.db
      .selectFrom('operate_log')
      .select(['module', 'action', 'success', 'errcode'])
      .where('biz_id', '=', String(c.id))
      .where('path', 'like', '/manage-api/checker/%')
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.action, r.success])).toEqual([
      ['新增核销员', true],
      ['修改核销员', true],
      ['设置核销范围', true],
      ['重置核销员密码', true],
      ['启用/停用核销员', true],
      ['修改核销员', true],
    ]);
    expect(rows.every((r) => r.module === '核销员管理')).toBe(true);
  });
});
