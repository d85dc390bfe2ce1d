import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCard,
  createCardModel,
  createCardModelRule,
  createMerchant,
  createShop,
  createSku,
  createSpu,
  uniq,
} from '../helpers/factories.js';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const P = '/manage-api/cardModel';
const ALL = ['cardModel:read', 'cardModel:write', 'card:read', 'card:write'];

let t: TestApp;
let platform: StaffSession;
let merchantA: StaffSession;
let shopA1: StaffSession;
let merchantB: StaffSession;
let org: { merchantA: number; shopA1: number; merchantB: number; cardSkuA: number; spotA1: number; spotB: number };

beforeAll(async () => {
  t = await createTestApp();
  const mA = await createMerchant(t.db);
  const mB = await createMerchant(t.db);
  const sA1 = await createShop(t.db, { merchant_id: mA });
  const cardSpu = await createSpu(t.db, { merchant_id: mA, shop_id: sA1, resource_type: 1 });
  org = {
    merchantA: mA,
    shopA1: sA1,
    merchantB: mB,
    cardSkuA: await createSku(t.db, { goods_id: cardSpu }),
    spotA1: await createSpu(t.db, { shop_id: sA1, merchant_id: mA }),
    spotB: await createSpu(t.db, { merchant_id: mB }),
  };
  platform = await staffSession(t, { kind: 'platform', permissions: ALL });
  merchantA = await staffSession(t, { kind: 'merchant', merchantId: mA, permissions: ALL });
  shopA1 = await staffSession(t, { kind: 'shop', shopId: sA1, permissions: ALL });
  merchantB = await staffSession(t, { kind: 'merchant', merchantId: mB, permissions: ALL });
});
afterAll(() => t?.close());

type ModelOut = {
  id: number;
  name: string;
  price: number;
  validityMonths: number;
  allocationEnabled: boolean;
  status: number;
  merchantId: number | null;
  skuId: number | null;
};

async function addOk(who: StaffSession, body: Record<string, unknown>): Promise<ModelOut> {
  const res = await t.post(`${P}/addCardModel`, { name: uniq('Annual pass '), price: 19800, ...body }, who.token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data;
}

describe('rejection matrix', () => {
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/addCardModel`,
    permission: 'cardModel:write',
    validBody: () => ({ name: uniq('m'), price: 100 }),
    badInputs: [
      { body: () => ({ price: 100 }), field: 'name' },
      { body: () => ({ name: '  ', price: 100 }), field: 'name' },
      { body: () => ({ name: 'x' }), field: 'price', rule: /required/ },
      { body: () => ({ name: 'x', price: -1 }), field: 'price' },
      { body: () => ({ name: 'x', price: 1.5 }), field: 'price' },
      { body: () => ({ name: 'x', price: 100, validityMonths: 0 }), field: 'validityMonths' },
      { body: () => ({ name: 'x', price: 100, validityMonths: 121 }), field: 'validityMonths' },
      { body: () => ({ name: 'x', price: 100, allocationEnabled: 'yes' }), field: 'allocationEnabled' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/updateCardModel`,
    permission: 'cardModel:write',
    validBody: () => ({ id: 1, name: 'x', price: 1 }),
    badInputs: [{ body: () => ({ name: 'x', price: 1 }), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/updateCardModelStatus`,
    permission: 'cardModel:write',
    validBody: () => ({ id: 1, status: 0 }),
    badInputs: [{ body: () => ({ id: 1, status: 5 }), field: 'status' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/updateCardModelAllocation`,
    permission: 'cardModel:write',
    validBody: () => ({ id: 1, allocationEnabled: true }),
    badInputs: [{ body: () => ({ id: 1 }), field: 'allocationEnabled' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/getCardModel`,
    permission: 'cardModel:read',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({}), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/queryCardModelList`,
    permission: 'cardModel:read',
    validBody: () => ({}),
    badInputs: [{ body: () => ({ status: 7 }), field: 'status' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/queryCardModelPage`,
    permission: 'cardModel:read',
    validBody: () => ({}),
    badInputs: [{ body: () => ({ pageSize: 1.5 }), field: 'pageSize' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/queryCardModelPriceHistory`,
    permission: 'cardModel:read',
    validBody: () => ({ cardModelId: 1 }),
    badInputs: [{ body: () => ({}), field: 'cardModelId' }],
  });
});

describe('card models', () => {
  it('adds a card model with its defaults and the first row of its price history', async () => {
    const m = await addOk(platform, { price: 29800 });
    expect(m).toMatchObject({
      price: 29800,
      validityMonths: 12,
      allocationEnabled: false,
      status: 1,
      merchantId: null,
      skuId: null,
    });
    const own = await addOk(merchantA, {
      price: 9800,
      validityMonths: 6,
      allocationEnabled: true,
      skuId: org.cardSkuA,
    });
    expect(own).toMatchObject({
      merchantId: org.merchantA,
      validityMonths: 6,
      allocationEnabled: true,
      skuId: org.cardSkuA,
    });
    const history = await t.post(`${P}/queryCardModelPriceHistory`, { cardModelId: own.id }, merchantA.token);
    expect(history.body.data).toEqual([
      expect.objectContaining({ price: 9800, validityMonths: 6, validTo: null, createdBy: merchantA.userId }),
    ]);
  });

  it('keeps the price history: a new price applies from now, the old one is closed, the cards keep their expiry', async () => {
    const m = await addOk(merchantA, { price: 19800 });
    const before = (await t.post(`${P}/queryCardModelPriceHistory`, { cardModelId: m.id }, merchantA.token)).body.data;
    // A card activated under the old price and validity.
    const card = await createCard(t.db, {
      card_number: uniq('9').slice(0, 20),
      card_model_id: m.id,
      status: 2,
      active_time: new Date('2026-01-10T02:00:00Z'),
      expire_time: new Date('2027-01-10T02:00:00Z'),
    });
    expect(
      (
        await t.post(
          `${P}/updateCardModel`,
          { id: m.id, name: m.name, price: 25800, validityMonths: 24 },
          merchantA.token,
        )
      ).body.errcode,
    ).toBe(0);
    const history = (await t.post(`${P}/queryCardModelPriceHistory`, { cardModelId: m.id }, merchantA.token)).body.data;
    expect(history).toHaveLength(2);
    expect(history[0]).toMatchObject({
      price: 19800,
      validityMonths: 12,
      validFrom: before[0].validFrom,
      validTo: expect.any(String),
    });
    expect(history[1]).toMatchObject({
      price: 25800,
      validityMonths: 24,
      validFrom: history[0].validTo,
      validTo: null,
    });
    // 2027-01-10T02:00:00Z, shown in the test time zone (Asia/Shanghai)
    expect((await t.post('/manage-api/card/getCard', { id: card }, merchantA.token)).body.data.expireTime).toBe(
      '2027-01-10 10:00:00',
    );
    // A rename alone adds no history.
    expect(
      (await t.post(`${P}/updateCardModel`, { id: m.id, name: `${m.name}!`, price: 25800 }, merchantA.token)).body
        .errcode,
    ).toBe(0);
    expect(
      (await t.post(`${P}/queryCardModelPriceHistory`, { cardModelId: m.id }, merchantA.token)).body.data,
    ).toHaveLength(2);
    expect((await t.post(`${P}/getCardModel`, { id: m.id }, merchantA.token)).body.data).toMatchObject({
      price: 25800,
      validityMonths: 24,
      name: `${m.name}!`,
    });
  });

  it('gives a model made without history (older data) its past price when the price first changes', async () => {
    const id = await createCardModel(t.db, { price: 5000, merchant_id: org.merchantA });
    expect(
      (await t.post(`${P}/updateCardModel`, { id, name: 'Older', price: 6000 }, merchantA.token)).body.errcode,
    ).toBe(0);
    const history = (await t.post(`${P}/queryCardModelPriceHistory`, { cardModelId: id }, merchantA.token)).body.data;
    expect(history.map((h: { price: number; validTo: string | null }) => [h.price, h.validTo === null])).toEqual([
      [5000, false],
      [6000, true],
    ]);
  });

  it('switches status and allocation', async () => {
    const m = await addOk(merchantA, {});
    expect((await t.post(`${P}/updateCardModelStatus`, { id: m.id, status: 0 }, merchantA.token)).body.errcode).toBe(0);
    expect(
      (await t.post(`${P}/updateCardModelAllocation`, { id: m.id, allocationEnabled: true }, merchantA.token)).body
        .errcode,
    ).toBe(0);
    expect((await t.post(`${P}/getCardModel`, { id: m.id }, merchantA.token)).body.data).toMatchObject({
      status: 0,
      allocationEnabled: true,
    });
    const list = await t.post(
      `${P}/queryCardModelList`,
      { status: 0, allocationEnabled: true, idList: [m.id] },
      platform.token,
    );
    expect(list.body.data.map((x: ModelOut) => x.id)).toEqual([m.id]);
  });

  it("checks the selling SKU: a tourism-card SKU of the model's merchant", async () => {
    const scenicSku = await createSku(t.db, { merchant_id: org.merchantA });
    const refused = { errcode: 404, errmsg: "tourism-card SKU (skuId) of the card model's merchant not found" };
    expect(
      (await t.post(`${P}/addCardModel`, { name: 'x', price: 1, skuId: scenicSku }, merchantA.token)).body,
    ).toEqual(refused);
    expect(
      (await t.post(`${P}/addCardModel`, { name: 'x', price: 1, skuId: org.cardSkuA }, merchantB.token)).body,
    ).toEqual(refused);
  });

  it('scopes models: merchants add and change their own; they see their own and those admitting their resources', async () => {
    const tag = uniq('scope');
    const a = await addOk(merchantA, { name: `${tag} A` });
    const b = await addOk(merchantB, { name: `${tag} B` });
    const platformModel = await addOk(platform, { name: `${tag} P` });
    await createCardModelRule(t.db, { card_model_id: platformModel.id, resource_id: org.spotA1, settlement_way: 5 });
    const ids = async (who: StaffSession) =>
      ((await t.post(`${P}/queryCardModelPage`, { name: tag }, who.token)).body.data.list as ModelOut[]).map(
        (m) => m.id,
      );
    expect(await ids(platform)).toEqual([platformModel.id, b.id, a.id]);
    expect(await ids(merchantA)).toEqual([platformModel.id, a.id]);
    expect(await ids(shopA1)).toEqual([platformModel.id, a.id]);
    expect(await ids(merchantB)).toEqual([b.id]);
    expect((await t.post(`${P}/getCardModel`, { id: b.id }, merchantA.token)).body).toEqual({
      errcode: 403,
      errmsg: 'the card model belongs to another merchant',
    });
    const notYours = { errcode: 403, errmsg: "only platform users and the card model's own merchant may change it" };
    expect(
      (await t.post(`${P}/updateCardModel`, { id: platformModel.id, name: 'x', price: 1 }, merchantA.token)).body,
    ).toEqual(notYours);
    expect((await t.post(`${P}/updateCardModelStatus`, { id: a.id, status: 0 }, shopA1.token)).body).toEqual(notYours);
    expect((await t.post(`${P}/addCardModel`, { name: 'x', price: 1 }, shopA1.token)).body).toEqual({
      errcode: 403,
      errmsg: 'shop users cannot add card models',
    });
    expect(
      (await t.post(`${P}/addCardModel`, { name: 'x', price: 1, merchantId: org.merchantB }, merchantA.token)).body
        .errcode,
    ).toBe(403);
    const forB = await addOk(platform, { merchantId: org.merchantB });
    expect(forB.merchantId).toBe(org.merchantB);
    expect((await t.post(`${P}/getCardModel`, { id: 999_999_999 }, platform.token)).body).toEqual({
      errcode: 404,
      errmsg: 'card model not found',
    });
  });

  it('records the writes in the operation log', async () => {
    const m = await addOk(merchantA, {});
    await t.post(`${P}/updateCardModel`, { id: m.id, name: m.name, price: 1 }, merchantA.token);
    await t.post(`${P}/updateCardModelStatus`, { id: m.id, status: 0 }, merchantA.token);
    await t.post(`${P}/updateCardModelAllocation`, { id: m.id, allocationEnabled: true }, merchantA.token);
    // only the database shows the operation log
    const rows = await t.db
      .selectFrom('operate_log')
      .select(['module', 'action', 'success'])
      .where('biz_id', '=', String(m.id))
      .where('path', 'like', '/manage-api/cardModel/%')
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.module, r.action, r.success])).toEqual([
      ['卡型管理', '新增卡型', true],
      ['卡型管理', '修改卡型', true],
      ['卡型管理', '启用/停用卡型', true],
      ['卡型管理', '设置参与分摊', true],
    ]);
  });
});
