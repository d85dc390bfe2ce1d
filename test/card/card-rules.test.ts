import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, createShop, createSpu } from '../helpers/factories.js';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const P = '/manage-api/cardModel';
const ALL = ['cardModel:read', 'cardModel:write'];

let t: TestApp;
let platform: StaffSession;
let merchantA: StaffSession;
let merchantB: StaffSession;
let org: { merchantA: number; merchantB: number; spots: number[]; cardSpu: number; modelA: number };

beforeAll(async () => {
  t = await createTestApp();
  const mA = await createMerchant(t.db);
  const mB = await createMerchant(t.db);
  const shop = await createShop(t.db, { merchant_id: mB });
  const spots = [];
  for (let i = 0; i < 20; i++) spots.push(await createSpu(t.db, { shop_id: shop, merchant_id: mB }));
  platform = await staffSession(t, { kind: 'platform', permissions: ALL });
  merchantA = await staffSession(t, { kind: 'merchant', merchantId: mA, permissions: ALL });
  merchantB = await staffSession(t, { kind: 'merchant', merchantId: mB, permissions: ALL });
  const model = await t.post(`${P}/addCardModel`, { name: 'Lake pass', price: 19800 }, merchantA.token);
  org = { merchantA: mA, merchantB: mB, spots, cardSpu: await createSpu(t.db, { resource_type: 1 }), modelA: model.body.data.id };
});
afterAll(() => t?.close());

let spotIndex = 0;
const nextSpot = () => org.spots[spotIndex++];

async function addRule(body: Record<string, unknown>, who = merchantA) {
  const res = await t.post(`${P}/addCardModelRule`, { cardModelId: org.modelA, resourceId: nextSpot(), settlementWay: 5, ...body }, who.token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data;
}

describe('rejection matrix', () => {
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/addCardModelRule`, permission: 'cardModel:write', validBody: () => ({ cardModelId: 1, resourceId: 1, settlementWay: 5 }),
    badInputs: [
      { body: () => ({ resourceId: 1, settlementWay: 5 }), field: 'cardModelId' },
      { body: () => ({ cardModelId: org.modelA, settlementWay: 5 }), field: 'resourceId' },
      { body: () => ({ cardModelId: org.modelA, resourceId: org.spots[19] }), field: 'settlementWay' },
      { body: () => ({ cardModelId: org.modelA, resourceId: org.spots[19], settlementWay: 6 }), field: 'settlementWay' },
      { body: () => ({ cardModelId: org.modelA, resourceId: org.spots[19], settlementWay: 1 }), field: 'buyPrice', rule: /required for settlement way 1/ },
      { body: () => ({ cardModelId: org.modelA, resourceId: org.spots[19], settlementWay: 2 }), field: 'buyoutAmount' },
      { body: () => ({ cardModelId: org.modelA, resourceId: org.spots[19], settlementWay: 3 }), field: 'sharePercent' },
      { body: () => ({ cardModelId: org.modelA, resourceId: org.spots[19], settlementWay: 3, sharePercent: 101 }), field: 'sharePercent' },
      { body: () => ({ cardModelId: org.modelA, resourceId: org.spots[19], settlementWay: 5, settlementFactor: 0.12345 }), field: 'settlementFactor', rule: /4 decimals/ },
      { body: () => ({ cardModelId: org.modelA, resourceId: org.spots[19], settlementWay: 5, dailyCheckLimit: 0 }), field: 'dailyCheckLimit' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/updateCardModelRule`, permission: 'cardModel:write', validBody: () => ({ id: 1, settlementWay: 5 }),
    badInputs: [{ body: () => ({ settlementWay: 5 }), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, { path: `${P}/deleteCardModelRule`, permission: 'cardModel:write', validBody: () => ({ id: 1 }), badInputs: [{ body: () => ({}), field: 'id' }] });
  itRefusesWhatStaffOperationsRefuse(() => t, { path: `${P}/getCardModelRule`, permission: 'cardModel:read', validBody: () => ({ id: 1 }), badInputs: [{ body: () => ({}), field: 'id' }] });
  itRefusesWhatStaffOperationsRefuse(() => t, { path: `${P}/queryCardModelRuleList`, permission: 'cardModel:read', validBody: () => ({ cardModelId: 1 }), badInputs: [{ body: () => ({}), field: 'cardModelId' }] });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/addCardModelRulePrice`, permission: 'cardModel:write', validBody: () => ({ ruleId: 1, startDate: '2026-01-01', endDate: '2026-06-30', price: 100 }),
    badInputs: [
      { body: () => ({ startDate: '2026-01-01', endDate: '2026-06-30', price: 100 }), field: 'ruleId' },
      { body: () => ({ ruleId: 1, startDate: '2026/01/01', endDate: '2026-06-30', price: 100 }), field: 'startDate' },
      { body: () => ({ ruleId: 1, startDate: '2026-02-30', endDate: '2026-06-30', price: 100 }), field: 'startDate', rule: /not a real date/ },
      { body: () => ({ ruleId: 1, startDate: '2026-07-01', endDate: '2026-06-30', price: 100 }), field: 'endDate', rule: /before startDate/ },
      { body: () => ({ ruleId: 1, startDate: '2026-01-01', endDate: '2026-06-30' }), field: 'price' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/updateCardModelRulePrice`, permission: 'cardModel:write', validBody: () => ({ id: 1, startDate: '2026-01-01', endDate: '2026-06-30', price: 100 }),
    badInputs: [{ body: () => ({ startDate: '2026-01-01', endDate: '2026-06-30', price: 100 }), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, { path: `${P}/deleteCardModelRulePrice`, permission: 'cardModel:write', validBody: () => ({ id: 1 }), badInputs: [{ body: () => ({}), field: 'id' }] });
  itRefusesWhatStaffOperationsRefuse(() => t, { path: `${P}/queryCardModelRulePriceList`, permission: 'cardModel:read', validBody: () => ({ ruleId: 1 }), badInputs: [{ body: () => ({}), field: 'ruleId' }] });
});

describe('rules', () => {
  it('adds a rule per resource with its settlement way and parameters; a second rule for the resource is 409', async () => {
    const resourceId = nextSpot();
    const rule = await addRule({ resourceId, settlementWay: 1, buyPrice: 2700, settlementFactor: 0.9, dailyCheckLimit: 2 });
    expect(rule).toMatchObject({
      cardModelId: org.modelA, resourceId, resourceType: 2, merchantId: org.merchantB, settlementWay: 1, buyPrice: 2700, settlementFactor: 0.9,
      buyoutAmount: null, sharePercent: null, dailyCheckLimit: 2, prices: [],
    });
    const dup = await t.post(`${P}/addCardModelRule`, { cardModelId: org.modelA, resourceId, settlementWay: 5 }, merchantA.token);
    expect(dup.body).toEqual({ errcode: 409, errmsg: `the card model already has a rule for resource "${rule.resourceName}"` });
    const share = await addRule({ settlementWay: 3, sharePercent: 12.5 });
    expect(share).toMatchObject({ settlementWay: 3, sharePercent: 12.5, settlementFactor: 1, dailyCheckLimit: 1 });
    const buyout = await addRule({ settlementWay: 2, buyoutAmount: 9_000_000 });
    expect(buyout.buyoutAmount).toBe(9_000_000);
    const list = await t.post(`${P}/queryCardModelRuleList`, { cardModelId: org.modelA }, merchantA.token);
    expect(list.body.data.map((r: { id: number }) => r.id)).toEqual(expect.arrayContaining([rule.id, share.id, buyout.id]));
  });

  it('updates and deletes a rule; the resource can then be admitted again', async () => {
    const resourceId = nextSpot();
    const rule = await addRule({ resourceId, settlementWay: 4 });
    expect((await t.post(`${P}/updateCardModelRule`, { id: rule.id, settlementWay: 1, buyPrice: 1500, settlementFactor: 0.85 }, merchantA.token)).body.errcode).toBe(0);
    expect((await t.post(`${P}/getCardModelRule`, { id: rule.id }, merchantA.token)).body.data).toMatchObject({ settlementWay: 1, buyPrice: 1500, settlementFactor: 0.85 });
    expect((await t.post(`${P}/deleteCardModelRule`, { id: rule.id }, merchantA.token)).body.errcode).toBe(0);
    expect((await t.post(`${P}/getCardModelRule`, { id: rule.id }, merchantA.token)).body).toEqual({ errcode: 404, errmsg: 'card model rule not found' });
    const again = await t.post(`${P}/addCardModelRule`, { cardModelId: org.modelA, resourceId, settlementWay: 5 }, merchantA.token);
    expect(again.body.errcode).toBe(0);
  });

  it('refuses unknown resources, a tourism card as a resource, and rules of a model the caller may not change', async () => {
    expect((await t.post(`${P}/addCardModelRule`, { cardModelId: org.modelA, resourceId: 999_999_999, settlementWay: 5 }, merchantA.token)).body)
      .toEqual({ errcode: 404, errmsg: 'resource (resourceId) not found' });
    const card = await t.post(`${P}/addCardModelRule`, { cardModelId: org.modelA, resourceId: org.cardSpu, settlementWay: 5 }, merchantA.token);
    expect(card.body.errcode).toBe(400);
    expect(card.body.errmsg).toMatch(/^resourceId is invalid/);
    // Merchant B owns the resources, so it sees the model and its rules, but cannot change them.
    const rule = await addRule({});
    expect((await t.post(`${P}/getCardModelRule`, { id: rule.id }, merchantB.token)).body.errcode).toBe(0);
    expect((await t.post(`${P}/updateCardModelRule`, { id: rule.id, settlementWay: 4 }, merchantB.token)).body.errcode).toBe(403);
    expect((await t.post(`${P}/addCardModelRule`, { cardModelId: org.modelA, resourceId: nextSpot(), settlementWay: 5 }, merchantB.token)).body.errcode).toBe(403);
  });
});

describe('price periods', () => {
  it('adds dated periods that never overlap, naming the clash with 409', async () => {
    const rule = await addRule({ settlementWay: 1, buyPrice: 2000 });
    const add = (startDate: string, endDate: string, price = 2000) =>
      t.post(`${P}/addCardModelRulePrice`, { ruleId: rule.id, startDate, endDate, price, settlementFactor: 0.9 }, merchantA.token);
    const first = await add('2026-01-01', '2026-06-30');
    expect(first.body.data).toMatchObject({ ruleId: rule.id, startDate: '2026-01-01', endDate: '2026-06-30', price: 2000, settlementFactor: 0.9 });
    expect((await add('2026-07-01', '2026-12-31', 2200)).body.errcode).toBe(0);
    const clash = await add('2026-06-30', '2026-07-15');
    expect(clash.body).toEqual({ errcode: 409, errmsg: `the period 2026-06-30 – 2026-07-15 overlaps price period ${first.body.data.id} (2026-01-01 – 2026-06-30) of the rule` });
    expect((await add('2025-12-01', '2027-01-01')).body.errcode).toBe(409);
    expect((await add('2026-03-01', '2026-03-01')).body.errcode).toBe(409);
    const list = await t.post(`${P}/queryCardModelRulePriceList`, { ruleId: rule.id }, merchantA.token);
    expect(list.body.data.map((p: { startDate: string; price: number }) => [p.startDate, p.price])).toEqual([['2026-01-01', 2000], ['2026-07-01', 2200]]);
  });

  it('updates a period without clashing with itself, and refuses a move onto a neighbour', async () => {
    const rule = await addRule({ settlementWay: 1, buyPrice: 2000 });
    const add = (startDate: string, endDate: string) => t.post(`${P}/addCardModelRulePrice`, { ruleId: rule.id, startDate, endDate, price: 1000 }, merchantA.token);
    const a = (await add('2026-01-01', '2026-03-31')).body.data;
    const b = (await add('2026-04-01', '2026-06-30')).body.data;
    expect((await t.post(`${P}/updateCardModelRulePrice`, { id: a.id, startDate: '2026-01-01', endDate: '2026-03-15', price: 1100 }, merchantA.token)).body.errcode).toBe(0);
    const move = await t.post(`${P}/updateCardModelRulePrice`, { id: a.id, startDate: '2026-01-01', endDate: '2026-04-01', price: 1100 }, merchantA.token);
    expect(move.body.errcode).toBe(409);
    expect(move.body.errmsg).toContain(`price period ${b.id}`);
    expect((await t.post(`${P}/deleteCardModelRulePrice`, { id: b.id }, merchantA.token)).body.errcode).toBe(0);
    expect((await t.post(`${P}/updateCardModelRulePrice`, { id: a.id, startDate: '2026-01-01', endDate: '2026-04-01', price: 1100 }, merchantA.token)).body.errcode).toBe(0);
    expect((await t.post(`${P}/deleteCardModelRulePrice`, { id: b.id }, merchantA.token)).body).toEqual({ errcode: 404, errmsg: 'price period not found' });
  });

  it('lets exactly one of concurrent overlapping periods in', async () => {
    const rule = await addRule({ settlementWay: 1, buyPrice: 2000 });
    const answers = await Promise.all(['2026-01-01', '2026-01-10', '2026-01-20', '2026-01-25'].map((startDate) =>
      t.post(`${P}/addCardModelRulePrice`, { ruleId: rule.id, startDate, endDate: '2026-01-31', price: 1000 }, merchantA.token)));
    expect(answers.map((a) => a.body.errcode).sort()).toEqual([0, 409, 409, 409]);
  });

  it('records rule and price writes in the operation log', async () => {
    const rule = await addRule({ settlementWay: 1, buyPrice: 2000 });
    const price = (await t.post(`${P}/addCardModelRulePrice`, { ruleId: rule.id, startDate: '2027-01-01', endDate: '2027-12-31', price: 1 }, merchantA.token)).body.data;
    await t.post(`${P}/deleteCardModelRulePrice`, { id: price.id }, merchantA.token);
    await t.post(`${P}/deleteCardModelRule`, { id: rule.id }, merchantA.token);
    const rows = await t.db.selectFrom('operate_log').select(['action', 'biz_id']).where('path', 'like', '/manage-api/cardModel/%')
      .where('biz_id', 'in', [String(rule.id), String(price.id)]).where('account_id', '=', merchantA.userId).orderBy('id').execute();
    expect(rows.map((r) => r.action)).toEqual(expect.arrayContaining(['新增资源规则', '新增价格区间', '删除价格区间', '删除资源规则']));
  });
});

describe('scoping', () => {
  it('hides the rules of a model another merchant may not see', async () => {
    const other = await staffSession(t, { kind: 'merchant', permissions: ALL });
    const rule = await addRule({});
    expect((await t.post(`${P}/getCardModelRule`, { id: rule.id }, other.token)).body.errcode).toBe(403);
    expect((await t.post(`${P}/queryCardModelRuleList`, { cardModelId: org.modelA }, other.token)).body.errcode).toBe(403);
    expect((await t.post(`${P}/queryCardModelRuleList`, { cardModelId: org.modelA }, platform.token)).body.errcode).toBe(0);
  });
});
