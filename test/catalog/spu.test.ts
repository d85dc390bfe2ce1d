import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCardModelRule, createMerchant, createShop, createSku, uniq } from '../helpers/factories.js';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/** Resources (spec B 2.6, 4.6 addSpu; get, list, page, update, delete are ours). */
const P = '/manage-api/spu';
const ALL = ['catalog:read', 'catalog:write'];

let t: TestApp;
let org: { merchantA: number; shopA1: number; shopA2: number; merchantB: number; shopB: number; shopA1Name: string };
let platform: StaffSession;
let merchantA: StaffSession;
let shopA1: StaffSession;
let merchantB: StaffSession;
/** changes merchants and card-model rules through their own operations */
let ops: StaffSession;

beforeAll(async () => {
  t = await createTestApp();
  const mA = await createMerchant(t.db);
  const mB = await createMerchant(t.db);
  const shopA1Name = `Lakeside ${uniq()}`;
  org = {
    merchantA: mA,
    shopA1: await createShop(t.db, { merchant_id: mA, name: shopA1Name }),
    shopA2: await createShop(t.db, { merchant_id: mA }),
    merchantB: mB,
    shopB: await createShop(t.db, { merchant_id: mB }),
    shopA1Name,
  };
  platform = await staffSession(t, { kind: 'platform', permissions: ALL });
  merchantA = await staffSession(t, { kind: 'merchant', merchantId: mA, permissions: ALL });
  shopA1 = await staffSession(t, { kind: 'shop', shopId: org.shopA1, permissions: ALL });
  merchantB = await staffSession(t, { kind: 'merchant', merchantId: mB, permissions: ALL });
  ops = await staffSession(t, { kind: 'platform', permissions: ['merchant:write', 'cardModel:write'] });
});
const succeeds = async (who: StaffSession, path: string, body: object) =>
  expect((await t.post(`/manage-api${path}`, body, who.token)).body).toEqual({ errcode: 0, errmsg: 'success' });
afterAll(() => t?.close());

type SpuOut = {
  id: number;
  name: string;
  shopId: number;
  resourceType: number;
  costPrice: number | null;
  stock: number | null;
  status: number;
  description: string | null;
  shopsName: string | null;
};
const spu = (over: Record<string, unknown> = {}) => ({
  name: uniq('Forest park '),
  shopId: org.shopA1,
  resourceType: 2,
  status: 1,
  ...over,
});
async function addOk(who: StaffSession, body: Record<string, unknown>): Promise<SpuOut> {
  const res = await t.post(`${P}/addSpu`, body, who.token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data;
}

describe('rejection matrix', () => {
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/addSpu`,
    permission: 'catalog:write',
    validBody: () => spu(),
    badInputs: [
      { body: () => ({ shopId: org.shopA1, resourceType: 2, status: 1 }), field: 'name', rule: /name is required/ },
      { body: () => ({ name: 'x', resourceType: 2, status: 1 }), field: 'shopId', rule: /shopId is required/ },
      {
        body: () => ({ name: 'x', shopId: org.shopA1, status: 1 }),
        field: 'resourceType',
        rule: /resourceType is required/,
      },
      { body: () => ({ name: 'x', shopId: org.shopA1, resourceType: 2 }), field: 'status', rule: /status is required/ },
      { body: () => spu({ resourceType: 9 }), field: 'resourceType', rule: /between 1 and 8/ },
      { body: () => spu({ status: 3 }), field: 'status', rule: /between 1 and 2/ },
      { body: () => spu({ costPrice: -1 }), field: 'costPrice' },
      { body: () => spu({ costPrice: 12.5 }), field: 'costPrice' },
      { body: () => spu({ stock: 'many' }), field: 'stock' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/updateSpu`,
    permission: 'catalog:write',
    validBody: () => ({ id: 1, ...spu() }),
    badInputs: [{ body: () => spu(), field: 'id', rule: /id is required/ }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/deleteSpu`,
    permission: 'catalog:write',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({}), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/getSpu`,
    permission: 'catalog:read',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({ id: 'x' }), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/querySpuList`,
    permission: 'catalog:read',
    validBody: () => ({}),
    badInputs: [{ body: () => ({ resourceType: 0 }), field: 'resourceType' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/querySpuPage`,
    permission: 'catalog:read',
    validBody: () => ({}),
    badInputs: [{ body: () => ({ pageSize: 1.5 }), field: 'pageSize' }],
  });
});

describe('resources', () => {
  it("adds a resource to a shop and answers it with the shop's name", async () => {
    const created = await addOk(
      merchantA,
      spu({ name: ' Cloud bamboo path ', costPrice: 3000, stock: 500, description: 'A 4A spot' }),
    );
    expect(created).toEqual({
      id: expect.any(Number),
      name: 'Cloud bamboo path',
      shopId: org.shopA1,
      resourceType: 2,
      costPrice: 3000,
      stock: 500,
      status: 1,
      description: 'A 4A spot',
      shopsName: org.shopA1Name,
    });
    // only the database shows the owning merchant and the author
    const row = await t.db
      .selectFrom('spu')
      .select(['merchant_id', 'created_by'])
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ merchant_id: org.merchantA, created_by: merchantA.userId });
    expect((await t.post(`${P}/getSpu`, { id: created.id }, shopA1.token)).body.data).toEqual(created);
  });

  it("refuses an unknown shop (404) and a shop outside the caller's scope (403)", async () => {
    expect((await t.post(`${P}/addSpu`, spu({ shopId: 999_999_999 }), platform.token)).body).toEqual({
      errcode: 404,
      errmsg: 'shop (shopId) not found',
    });
    expect((await t.post(`${P}/addSpu`, spu({ shopId: org.shopB }), merchantA.token)).body).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another merchant',
    });
    expect((await t.post(`${P}/addSpu`, spu({ shopId: org.shopA2 }), shopA1.token)).body).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another shop',
    });
  });

  it('updates a resource, keeping absent optional fields, and takes it off shelf', async () => {
    const s = await addOk(merchantA, spu({ costPrice: 100, stock: 5, description: 'old' }));
    const upd = await t.post(
      `${P}/updateSpu`,
      { id: s.id, name: 'Renamed', shopId: org.shopA1, resourceType: 4, status: 2, description: '' },
      merchantA.token,
    );
    expect(upd.body).toEqual({ errcode: 0, errmsg: 'success' });
    expect((await t.post(`${P}/getSpu`, { id: s.id }, merchantA.token)).body.data).toEqual({
      ...s,
      name: 'Renamed',
      resourceType: 4,
      status: 2,
      description: null,
    });
  });

  it('moves a resource to another shop of the caller only while it has no SKUs', async () => {
    const s = await addOk(merchantA, spu());
    expect(
      (await t.post(`${P}/updateSpu`, { id: s.id, ...spu({ shopId: org.shopA2 }) }, merchantA.token)).body.errcode,
    ).toBe(0);
    expect((await t.post(`${P}/getSpu`, { id: s.id }, merchantA.token)).body.data.shopId).toBe(org.shopA2);
    expect(
      (await t.post(`${P}/updateSpu`, { id: s.id, ...spu({ shopId: org.shopB }) }, merchantA.token)).body.errcode,
    ).toBe(403);
    await createSku(t.db, { goods_id: s.id });
    expect(
      (await t.post(`${P}/updateSpu`, { id: s.id, ...spu({ shopId: org.shopA1 }) }, merchantA.token)).body,
    ).toEqual({
      errcode: 409,
      errmsg: 'the resource still has 1 SKU of its shop: it can move to another shop only without SKUs',
    });
  });

  it('adds or moves nothing to a shop of a disabled merchant (1_022_000_001), and does once it is enabled again', async () => {
    const name = `Closed group ${uniq()}`;
    const merchant = await createMerchant(t.db, { name, status: 0 });
    const shop = await createShop(t.db, { merchant_id: merchant });
    const disabled = { errcode: 1_022_000_001, errmsg: `merchant "${name}" is disabled: enable it first` };
    expect((await t.post(`${P}/addSpu`, spu({ shopId: shop }), platform.token)).body).toEqual(disabled);
    const elsewhere = await addOk(platform, spu());
    expect(
      (await t.post(`${P}/updateSpu`, { id: elsewhere.id, ...spu({ shopId: shop }) }, platform.token)).body,
    ).toEqual(disabled);
    expect((await t.post(`${P}/getSpu`, { id: elsewhere.id }, platform.token)).body.data.shopId).toBe(org.shopA1);
    // the merchant's only shop holds no resource
    expect((await t.post(`${P}/querySpuList`, { shopId: shop }, platform.token)).body.data).toEqual([]);
    await succeeds(ops, '/merchant/updateMerchantStatus', { id: merchant, status: 1 });
    expect((await addOk(platform, spu({ shopId: shop }))).shopId).toBe(shop);
  });

  it("refuses to change a tourism card's type while its SKUs carry cardNum, naming them", async () => {
    const card = await addOk(merchantA, spu({ resourceType: 1 }));
    const carded1 = await createSku(t.db, { goods_id: card.id, card_num: 100 });
    const carded2 = await createSku(t.db, { goods_id: card.id, card_num: 0 });
    await createSku(t.db, { goods_id: card.id });
    const retype = () =>
      t.post(`${P}/updateSpu`, { id: card.id, ...spu({ name: card.name, resourceType: 2 }) }, merchantA.token);
    expect((await retype()).body).toEqual({
      errcode: 409,
      errmsg: `resourceType is invalid: the resource is a tourism card (1) and 2 SKUs (ids ${carded1}, ${carded2}) carry cardNum: remove those or move them to another tourism-card resource first`,
    });
    expect((await t.post(`${P}/getSpu`, { id: card.id }, merchantA.token)).body.data.resourceType).toBe(1);
    await succeeds(merchantA, '/sku/deleteSku', { id: carded1 });
    expect((await retype()).body.errmsg).toMatch(/and 1 SKU \(id \d+\) carries cardNum:/);
    await succeeds(merchantA, '/sku/deleteSku', { id: carded2 });
    // SKUs without cardNum do not hold the type.
    expect((await retype()).body).toEqual({ errcode: 0, errmsg: 'success' });
    expect((await t.post(`${P}/getSpu`, { id: card.id }, merchantA.token)).body.data.resourceType).toBe(2);
  });

  it('refuses to delete a resource that SKUs, card-model rules or coupon templates refer to, naming them', async () => {
    const s = await addOk(merchantA, spu());
    const sku1 = await createSku(t.db, { goods_id: s.id });
    const sku2 = await createSku(t.db, { goods_id: s.id });
    const rule = await createCardModelRule(t.db, { resource_id: s.id });
    // Written directly: the coupon module has no operation or function that adds or removes a template.
    const tpl = await t.db
      .insertInto('coupon_template')
      .values({
        name: 'Spot coupon',
        total_count: -1,
        take_limit_count: 1,
        take_type: 1,
        validity_type: 2,
        fixed_start_term: 0,
        fixed_end_term: 30,
        discount_type: 1,
        discount_price: 500,
        product_scope: 2,
        product_scope_values: [s.id],
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const res = await t.post(`${P}/deleteSpu`, { id: s.id }, merchantA.token);
    expect(res.body).toEqual({
      errcode: 409,
      errmsg: `the resource is still referenced by 2 SKUs (ids ${sku1}, ${sku2}), 1 card-model rule (id ${rule}) and 1 coupon template (id ${tpl.id}): remove or move those first`,
    });
    for (const id of [sku1, sku2]) await succeeds(merchantA, '/sku/deleteSku', { id });
    await succeeds(ops, '/cardModel/deleteCardModelRule', { id: rule });
    await t.db.updateTable('coupon_template').set({ is_deleted: true }).where('id', '=', tpl.id).execute();
    expect((await t.post(`${P}/deleteSpu`, { id: s.id }, merchantA.token)).body).toEqual({
      errcode: 0,
      errmsg: 'success',
    });
    expect((await t.post(`${P}/getSpu`, { id: s.id }, merchantA.token)).body).toEqual({
      errcode: 404,
      errmsg: 'resource (spu) not found',
    });
  });

  it("refuses another merchant's or shop's resource with 403 on every operation", async () => {
    const theirs = await addOk(merchantB, spu({ shopId: org.shopB }));
    const refused = { errcode: 403, errmsg: 'the record belongs to another merchant' };
    expect((await t.post(`${P}/getSpu`, { id: theirs.id }, merchantA.token)).body).toEqual(refused);
    expect((await t.post(`${P}/updateSpu`, { id: theirs.id, ...spu() }, merchantA.token)).body).toEqual(refused);
    expect((await t.post(`${P}/deleteSpu`, { id: theirs.id }, merchantA.token)).body).toEqual(refused);
    const sibling = await addOk(merchantA, spu({ shopId: org.shopA2 }));
    expect((await t.post(`${P}/getSpu`, { id: sibling.id }, shopA1.token)).body).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another shop',
    });
  });

  it('lists and pages only what the caller may see, with the filters', async () => {
    const tag = uniq('spu');
    const a1 = await addOk(merchantA, spu({ name: `${tag} lake`, resourceType: 2 }));
    const a2 = await addOk(merchantA, spu({ name: `${tag} inn`, shopId: org.shopA2, resourceType: 3, status: 2 }));
    const b = await addOk(merchantB, spu({ name: `${tag} far`, shopId: org.shopB }));
    const ids = async (who: StaffSession, f: object = {}) =>
      ((await t.post(`${P}/querySpuList`, { keywords: tag, ...f }, who.token)).body.data as SpuOut[]).map((s) => s.id);
    expect(await ids(platform)).toEqual([b.id, a2.id, a1.id]);
    expect(await ids(merchantA)).toEqual([a2.id, a1.id]);
    expect(await ids(shopA1)).toEqual([a1.id]);
    expect(await ids(merchantA, { resourceType: 3 })).toEqual([a2.id]);
    expect(await ids(merchantA, { status: 1 })).toEqual([a1.id]);
    expect(await ids(merchantA, { shopId: org.shopA2 })).toEqual([a2.id]);
    expect(await ids(platform, { name: 'LAKE', idList: [a1.id, b.id] })).toEqual([a1.id]);
    const page = await t.post(`${P}/querySpuPage`, { keywords: tag, pageSize: 1, pageNum: 2 }, platform.token);
    expect(page.body.data).toEqual({
      list: [expect.objectContaining({ id: a2.id, shopsName: expect.any(String) })],
      total: 3,
    });
  });

  it('logs add, update and delete', async () => {
    const s = await addOk(shopA1, spu());
    await t.post(`${P}/updateSpu`, { id: s.id, ...spu({ name: 'Logged' }) }, shopA1.token);
    await t.post(`${P}/deleteSpu`, { id: s.id }, shopA1.token);
    // only the database shows the operation log
    const rows = await t.db
      .selectFrom('operate_log')
      .select(['module', 'action', 'success'])
      .where('account_id', '=', shopA1.userId)
      .where('biz_id', '=', String(s.id))
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { module: '资源管理', action: '新增资源', success: true },
      { module: '资源管理', action: '修改资源', success: true },
      { module: '资源管理', action: '删除资源', success: true },
    ]);
  });
});
