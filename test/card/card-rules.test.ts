import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCardModelRule, createMerchant, createShop, createSpu } from '../helpers/factories.js';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const P = '/manage-api/cardModel';
const ALL = ['cardModel:read', 'cardModel:write'];

let t: TestApp;
let platform: StaffSession;
let merchantA: StaffSession;
let merchantB: StaffSession;
let org: { merchantA: number; merchantB: number; spots: number[]; foreign: number[]; cardSpu: number; modelA: number };

beforeAll(async () => {
  t = await createTestApp();
  const mA = await createMerchant(t.db);
  const mB = await createMerchant(t.db);
  const shopA = await createShop(t.db, { merchant_id: mA });
  const shopB = await createShop(t.db, { merchant_id: mB });
  const spots = [];
  for (let i = 0; i < 20; i++) spots.push(await createSpu(t.db, { shop_id: shopA, merchant_id: mA }));
  const foreign = [];
  for (let i = 0; i < 6; i++) foreign.push(await createSpu(t.db, { shop_id: shopB, merchant_id: mB }));
  platform = await staffSession(t, { kind: 'platform', permissions: ALL });
  merchantA = await staffSession(t, { kind: 'merchant', merchantId: mA, permissions: ALL });
  merchantB = await staffSession(t, { kind: 'merchant', merchantId: mB, permissions: ALL });
  const model = await t.post(`${P}/addCardModel`, { name: 'Lake pass', price: 19800 }, merchantA.token);
  org = {
    merchantA: mA,
    merchantB: mB,
    spots,
    foreign,
    cardSpu: await createSpu(t.db, { resource_type: 1, merchant_id: mA }),
    modelA: model.body.data.id,
  };
});
afterAll(() => t?.close());

let spotIndex = 0;
const nextSpot = () => org.spots[spotIndex++];

async function addRule(body: Record<string, unknown>, who = merchantA) {
  const res = await t.post(
    `${P}/addCardModelRule`,
    { cardModelId: org.modelA, resourceId: nextSpot(), settlementWay: 5, ...body },
    who.token,
  );
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data;
}

describe('rejection matrix', () => {
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/addCardModelRule`,
    permission: 'cardModel:write',
    validBody: () => ({ cardModelId: 1, resourceId: 1, settlementWay: 5 }),
    badInputs: [
      { body: () => ({ resourceId: 1, settlementWay: 5 }), field: 'cardModelId' },
      { body: () => ({ cardModelId: org.modelA, settlementWay: 5 }), field: 'resourceId' },
      { body: () => ({ cardModelId: org.modelA, resourceId: org.spots[19] }), field: 'settlementWay' },
      {
        body: () => ({ cardModelId: org.modelA, resourceId: org.spots[19], settlementWay: 6 }),
        field: 'settlementWay',
      },
      {
        body: () => ({ cardModelId: org.modelA, resourceId: org.spots[19], settlementWay: 1 }),
        field: 'buyPrice',
        rule: /required for settlement way 1/,
      },
      { body: () => ({ cardModelId: org.modelA, resourceId: org.spots[19], settlementWay: 2 }), field: 'buyoutAmount' },
      { body: () => ({ cardModelId: org.modelA, resourceId: org.spots[19], settlementWay: 3 }), field: 'sharePercent' },
      {
        body: () => ({ cardModelId: org.modelA, resourceId: org.spots[19], settlementWay: 3, sharePercent: 101 }),
        field: 'sharePercent',
      },
      {
        body: () => ({
          cardModelId: org.modelA,
          resourceId: org.spots[19],
          settlementWay: 5,
          settlementFactor: 0.12345,
        }),
        field: 'settlementFactor',
        rule: /4 decimals/,
      },
      {
        body: () => ({ cardModelId: org.modelA, resourceId: org.spots[19], settlementWay: 5, dailyCheckLimit: 0 }),
        field: 'dailyCheckLimit',
      },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/updateCardModelRule`,
    permission: 'cardModel:write',
    validBody: () => ({ id: 1, settlementWay: 5 }),
    badInputs: [{ body: () => ({ settlementWay: 5 }), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/deleteCardModelRule`,
    permission: 'cardModel:write',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({}), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/getCardModelRule`,
    permission: 'cardModel:read',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({}), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/queryCardModelRuleList`,
    permission: 'cardModel:read',
    validBody: () => ({ cardModelId: 1 }),
    badInputs: [{ body: () => ({}), field: 'cardModelId' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/addCardModelRulePrice`,
    permission: 'cardModel:write',
    validBody: () => ({ ruleId: 1, startDate: '2026-01-01', endDate: '2026-06-30', price: 100 }),
    badInputs: [
      { body: () => ({ startDate: '2026-01-01', endDate: '2026-06-30', price: 100 }), field: 'ruleId' },
      { body: () => ({ ruleId: 1, startDate: '2026/01/01', endDate: '2026-06-30', price: 100 }), field: 'startDate' },
      {
        body: () => ({ ruleId: 1, startDate: '2026-02-30', endDate: '2026-06-30', price: 100 }),
        field: 'startDate',
        rule: /not a real date/,
      },
      {
        body: () => ({ ruleId: 1, startDate: '2026-07-01', endDate: '2026-06-30', price: 100 }),
        field: 'endDate',
        rule: /before startDate/,
      },
      { body: () => ({ ruleId: 1, startDate: '2026-01-01', endDate: '2026-06-30' }), field: 'price' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/updateCardModelRulePrice`,
    permission: 'cardModel:write',
    validBody: () => ({ id: 1, startDate: '2026-01-01', endDate: '2026-06-30', price: 100 }),
    badInputs: [{ body: () => ({ startDate: '2026-01-01', endDate: '2026-06-30', price: 100 }), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/deleteCardModelRulePrice`,
    permission: 'cardModel:write',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({}), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/queryCardModelRulePriceList`,
    permission: 'cardModel:read',
    validBody: () => ({ ruleId: 1 }),
    badInputs: [{ body: () => ({}), field: 'ruleId' }],
  });
});

describe('rules', () => {
  it('adds a rule per resource with its settlement way and parameters; a second rule for the resource is 409', async () => {
    const resourceId = nextSpot();
    const rule = await addRule({
      resourceId,
      settlementWay: 1,
      buyPrice: 2700,
      settlementFactor: 0.9,
      dailyCheckLimit: 2,
    });
    expect(rule).toMatchObject({
      cardModelId: org.modelA,
      resourceId,
      resourceType: 2,
      merchantId: org.merchantA,
      settlementWay: '1',
      buyPrice: 2700,
      settlementFactor: 0.9,
      buyoutAmount: null,
      sharePercent: null,
      dailyCheckLimit: 2,
      prices: [],
    });
    const dup = await t.post(
      `${P}/addCardModelRule`,
      { cardModelId: org.modelA, resourceId, settlementWay: 5 },
      merchantA.token,
    );
    expect(dup.body).toEqual({
      errcode: 409,
      errmsg: `the card model already has a rule for resource "${rule.resourceName}"`,
    });
    const share = await addRule({ settlementWay: 3, sharePercent: 12.5 });
    expect(share).toMatchObject({ settlementWay: '3', sharePercent: 12.5, settlementFactor: 1, dailyCheckLimit: 1 });
    const buyout = await addRule({ settlementWay: 2, buyoutAmount: 9_000_000 });
    expect(buyout.buyoutAmount).toBe(9_000_000);
    const list = await t.post(`${P}/queryCardModelRuleList`, { cardModelId: org.modelA }, merchantA.token);
    expect(list.body.data.map((r: { id: number }) => r.id)).toEqual(
      expect.arrayContaining([rule.id, share.id, buyout.id]),
    );
  });

  it('updates and deletes a rule; the resource can then be admitted again', async () => {
    const resourceId = nextSpot();
    const rule = await addRule({ resourceId, settlementWay: 4 });
    expect(
      (
        await t.post(
          `${P}/updateCardModelRule`,
          { id: rule.id, settlementWay: 1, buyPrice: 1500, settlementFactor: 0.85 },
          merchantA.token,
        )
      ).body.errcode,
    ).toBe(0);
    expect((await t.post(`${P}/getCardModelRule`, { id: rule.id }, merchantA.token)).body.data).toMatchObject({
      settlementWay: '1',
      buyPrice: 1500,
      settlementFactor: 0.85,
    });
    expect((await t.post(`${P}/deleteCardModelRule`, { id: rule.id }, merchantA.token)).body.errcode).toBe(0);
    expect((await t.post(`${P}/getCardModelRule`, { id: rule.id }, merchantA.token)).body).toEqual({
      errcode: 404,
      errmsg: 'card model rule not found',
    });
    const again = await t.post(
      `${P}/addCardModelRule`,
      { cardModelId: org.modelA, resourceId, settlementWay: 5 },
      merchantA.token,
    );
    expect(again.body.errcode).toBe(0);
  });

  it('refuses unknown resources, a tourism card as a resource, and rules of a model the caller may not change', async () => {
    expect(
      (
        await t.post(
          `${P}/addCardModelRule`,
          { cardModelId: org.modelA, resourceId: 999_999_999, settlementWay: 5 },
          merchantA.token,
        )
      ).body,
    ).toEqual({ errcode: 404, errmsg: 'resource (resourceId) not found' });
    const card = await t.post(
      `${P}/addCardModelRule`,
      { cardModelId: org.modelA, resourceId: org.cardSpu, settlementWay: 5 },
      merchantA.token,
    );
    expect(card.body.errcode).toBe(400);
    expect(card.body.errmsg).toMatch(/^resourceId is invalid/);
    // A platform card admits merchant B's spot: B sees the model and its rules, but cannot change them.
    const regional = (await t.post(`${P}/addCardModel`, { name: 'Region pass', price: 29800 }, platform.token)).body
      .data;
    const rule = (
      await t.post(
        `${P}/addCardModelRule`,
        { cardModelId: regional.id, resourceId: org.foreign[0], settlementWay: 5 },
        platform.token,
      )
    ).body.data;
    expect((await t.post(`${P}/getCardModelRule`, { id: rule.id }, merchantB.token)).body.errcode).toBe(0);
    expect(
      (await t.post(`${P}/updateCardModelRule`, { id: rule.id, settlementWay: 4 }, merchantB.token)).body.errcode,
    ).toBe(403);
    expect(
      (
        await t.post(
          `${P}/addCardModelRule`,
          { cardModelId: regional.id, resourceId: org.foreign[1], settlementWay: 5 },
          merchantB.token,
        )
      ).body.errcode,
    ).toBe(403);
    expect(
      (
        await t.post(
          `${P}/addCardModelRule`,
          { cardModelId: org.modelA, resourceId: org.foreign[1], settlementWay: 5 },
          merchantB.token,
        )
      ).body.errcode,
    ).toBe(403);
  });
});

describe('price periods', () => {
  it('adds dated periods that never overlap, naming the clash with 409', async () => {
    const rule = await addRule({ settlementWay: 1, buyPrice: 2000 });
    const add = (startDate: string, endDate: string, price = 2000) =>
      t.post(
        `${P}/addCardModelRulePrice`,
        { ruleId: rule.id, startDate, endDate, price, settlementFactor: 0.9 },
        merchantA.token,
      );
    const first = await add('2026-01-01', '2026-06-30');
    expect(first.body.data).toMatchObject({
      ruleId: rule.id,
      startDate: '2026-01-01',
      endDate: '2026-06-30',
      price: 2000,
      settlementFactor: 0.9,
    });
    expect((await add('2026-07-01', '2026-12-31', 2200)).body.errcode).toBe(0);
    const clash = await add('2026-06-30', '2026-07-15');
    expect(clash.body).toEqual({
      errcode: 409,
      errmsg: `the period 2026-06-30 – 2026-07-15 overlaps price period ${first.body.data.id} (2026-01-01 – 2026-06-30) of the rule`,
    });
    expect((await add('2025-12-01', '2027-01-01')).body.errcode).toBe(409);
    expect((await add('2026-03-01', '2026-03-01')).body.errcode).toBe(409);
    const list = await t.post(`${P}/queryCardModelRulePriceList`, { ruleId: rule.id }, merchantA.token);
    expect(list.body.data.map((p: { startDate: string; price: number }) => [p.startDate, p.price])).toEqual([
      ['2026-01-01', 2000],
      ['2026-07-01', 2200],
    ]);
  });

  it('updates a period without clashing with itself, and refuses a move onto a neighbour', async () => {
    const rule = await addRule({ settlementWay: 1, buyPrice: 2000 });
    const add = (startDate: string, endDate: string) =>
      t.post(`${P}/addCardModelRulePrice`, { ruleId: rule.id, startDate, endDate, price: 1000 }, merchantA.token);
    const a = (await add('2026-01-01', '2026-03-31')).body.data;
    const b = (await add('2026-04-01', '2026-06-30')).body.data;
    expect(
      (
        await t.post(
          `${P}/updateCardModelRulePrice`,
          { id: a.id, startDate: '2026-01-01', endDate: '2026-03-15', price: 1100 },
          merchantA.token,
        )
      ).body.errcode,
    ).toBe(0);
    const move = await t.post(
      `${P}/updateCardModelRulePrice`,
      { id: a.id, startDate: '2026-01-01', endDate: '2026-04-01', price: 1100 },
      merchantA.token,
    );
    expect(move.body.errcode).toBe(409);
    expect(move.body.errmsg).toContain(`price period ${b.id}`);
    expect((await t.post(`${P}/deleteCardModelRulePrice`, { id: b.id }, merchantA.token)).body.errcode).toBe(0);
    expect(
      (
        await t.post(
          `${P}/updateCardModelRulePrice`,
          { id: a.id, startDate: '2026-01-01', endDate: '2026-04-01', price: 1100 },
          merchantA.token,
        )
      ).body.errcode,
    ).toBe(0);
    expect((await t.post(`${P}/deleteCardModelRulePrice`, { id: b.id }, merchantA.token)).body).toEqual({
      errcode: 404,
      errmsg: 'price period not found',
    });
  });

  it('lets exactly one of concurrent overlapping periods in', async () => {
    const rule = await addRule({ settlementWay: 1, buyPrice: 2000 });
    const answers = await Promise.all(
      ['2026-01-01', '2026-01-10', '2026-01-20', '2026-01-25'].map((startDate) =>
        t.post(
          `${P}/addCardModelRulePrice`,
          { ruleId: rule.id, startDate, endDate: '2026-01-31', price: 1000 },
          merchantA.token,
        ),
      ),
    );
    expect(answers.map((a) => a.body.errcode).sort()).toEqual([0, 409, 409, 409]);
  });

  it('records rule and price writes in the operation log', async () => {
    const rule = await addRule({ settlementWay: 1, buyPrice: 2000 });
    const price = (
      await t.post(
        `${P}/addCardModelRulePrice`,
        { ruleId: rule.id, startDate: '2027-01-01', endDate: '2027-12-31', price: 1 },
        merchantA.token,
      )
    ).body.data;
    await t.post(`${P}/deleteCardModelRulePrice`, { id: price.id }, merchantA.token);
    await t.post(`${P}/deleteCardModelRule`, { id: rule.id }, merchantA.token);
    const rows = await t.db
      .selectFrom('operate_log')
      .select(['action', 'biz_id'])
      .where('path', 'like', '/manage-api/cardModel/%')
      .where('biz_id', 'in', [String(rule.id), String(price.id)])
      .where('account_id', '=', merchantA.userId)
      .orderBy('id')
      .execute();
    expect(rows.map((r) => r.action)).toEqual(
      expect.arrayContaining(['新增资源规则', '新增价格区间', '删除价格区间', '删除资源规则']),
    );
  });
});

describe('resources of other merchants', () => {
  const FOREIGN = { errcode: 403, errmsg: "a merchant's card model admits only resources of its own merchant" };
  const rulesOf = async (cardModelId: number) =>
    (
      await t.db
        .selectFrom('card_model_resource_rule')
        .select('resource_id')
        .where('card_model_id', '=', cardModelId)
        .where('is_deleted', '=', false)
        .execute()
    ).map((r) => r.resource_id);

  it("refuses another merchant's resource on a merchant's model (403, nothing written, nothing of the resource shown)", async () => {
    const before = await rulesOf(org.modelA);
    for (const settlement of [
      { settlementWay: 1, buyPrice: 1 },
      { settlementWay: 2, buyoutAmount: 1 },
    ]) {
      const res = await t.post(
        `${P}/addCardModelRule`,
        { cardModelId: org.modelA, resourceId: org.foreign[2], ...settlement },
        merchantA.token,
      );
      expect(res.body).toEqual(FOREIGN);
    }
    // another merchant's tourism card is refused the same way, not told apart as a tourism card
    const theirCard = await createSpu(t.db, { resource_type: 1, merchant_id: org.merchantB });
    expect(
      (
        await t.post(
          `${P}/addCardModelRule`,
          { cardModelId: org.modelA, resourceId: theirCard, settlementWay: 5 },
          merchantA.token,
        )
      ).body,
    ).toEqual(FOREIGN);
    expect(await rulesOf(org.modelA)).toEqual(before);
    // a platform user cannot attach it to the merchant's model either; the merchant's own resource it can
    expect(
      (
        await t.post(
          `${P}/addCardModelRule`,
          { cardModelId: org.modelA, resourceId: org.foreign[2], settlementWay: 5 },
          platform.token,
        )
      ).body,
    ).toEqual(FOREIGN);
    expect(
      (
        await t.post(
          `${P}/addCardModelRule`,
          { cardModelId: org.modelA, resourceId: nextSpot(), settlementWay: 5 },
          platform.token,
        )
      ).body.errcode,
    ).toBe(0);
  });

  it("lets platform users put any merchant's resources on platform cards (no merchant, or the platform's own merchant)", async () => {
    const noMerchant = (await t.post(`${P}/addCardModel`, { name: 'City pass', price: 9900 }, platform.token)).body
      .data;
    const rule = await t.post(
      `${P}/addCardModelRule`,
      { cardModelId: noMerchant.id, resourceId: org.foreign[3], settlementWay: 5 },
      platform.token,
    );
    expect(rule.body.data).toMatchObject({ resourceId: org.foreign[3], merchantId: org.merchantB });
    expect(
      (
        await t.post(
          `${P}/addCardModelRule`,
          { cardModelId: noMerchant.id, resourceId: nextSpot(), settlementWay: 5 },
          platform.token,
        )
      ).body.errcode,
    ).toBe(0);

    const platformMerchant = await createMerchant(t.db, { merchant_type: 1 });
    const operator = await staffSession(t, { kind: 'merchant', merchantId: platformMerchant, permissions: ALL });
    const bundled = (
      await t.post(
        `${P}/addCardModel`,
        { name: 'Province pass', price: 39900, merchantId: platformMerchant },
        platform.token,
      )
    ).body.data;
    expect(
      (
        await t.post(
          `${P}/addCardModelRule`,
          { cardModelId: bundled.id, resourceId: org.foreign[3], settlementWay: 5 },
          platform.token,
        )
      ).body.errcode,
    ).toBe(0);
    // the platform merchant's own staff are merchant users: its resources only
    expect(
      (
        await t.post(
          `${P}/addCardModelRule`,
          { cardModelId: bundled.id, resourceId: org.foreign[4], settlementWay: 5 },
          operator.token,
        )
      ).body,
    ).toEqual(FOREIGN);
    expect(await rulesOf(bundled.id)).toEqual([org.foreign[3]]);
  });

  it('lets a rule made earlier for a foreign resource be deleted, never re-priced', async () => {
    const ruleId = await createCardModelRule(t.db, {
      card_model_id: org.modelA,
      resource_id: org.foreign[5],
      settlement_way: 1,
      buy_price: 5000,
    });
    const priceId = (
      await t.db
        .insertInto('card_model_resource_price')
        .values({ rule_id: ruleId, start_date: '2026-01-01', end_date: '2026-12-31', price: 5000 })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
    expect(
      (await t.post(`${P}/updateCardModelRule`, { id: ruleId, settlementWay: 1, buyPrice: 1 }, merchantA.token)).body,
    ).toEqual(FOREIGN);
    expect(
      (
        await t.post(
          `${P}/addCardModelRulePrice`,
          { ruleId, startDate: '2027-01-01', endDate: '2027-12-31', price: 1 },
          merchantA.token,
        )
      ).body,
    ).toEqual(FOREIGN);
    expect(
      (
        await t.post(
          `${P}/updateCardModelRulePrice`,
          { id: priceId, startDate: '2026-01-01', endDate: '2026-12-31', price: 1 },
          merchantA.token,
        )
      ).body,
    ).toEqual(FOREIGN);
    const stored = await t.db
      .selectFrom('card_model_resource_rule')
      .select(['buy_price'])
      .where('id', '=', ruleId)
      .executeTakeFirstOrThrow();
    expect(stored.buy_price).toBe(5000);
    expect(
      await t.db.selectFrom('card_model_resource_price').select(['price']).where('rule_id', '=', ruleId).execute(),
    ).toEqual([{ price: 5000 }]);
    expect((await t.post(`${P}/deleteCardModelRulePrice`, { id: priceId }, merchantA.token)).body.errcode).toBe(0);
    expect((await t.post(`${P}/deleteCardModelRule`, { id: ruleId }, merchantA.token)).body.errcode).toBe(0);
  });
});

describe('scoping', () => {
  it('hides the rules of a model another merchant may not see', async () => {
    const other = await staffSession(t, { kind: 'merchant', permissions: ALL });
    const rule = await addRule({});
    expect((await t.post(`${P}/getCardModelRule`, { id: rule.id }, other.token)).body.errcode).toBe(403);
    expect((await t.post(`${P}/queryCardModelRuleList`, { cardModelId: org.modelA }, other.token)).body.errcode).toBe(
      403,
    );
    expect(
      (await t.post(`${P}/queryCardModelRuleList`, { cardModelId: org.modelA }, platform.token)).body.errcode,
    ).toBe(0);
  });
});
