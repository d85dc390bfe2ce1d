import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCardModel,
  createChecker,
  createCheckerRelation,
  createMerchant,
  createShop,
  createSpu,
  createTicketsSku,
  uniq,
} from '../helpers/factories.js';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/** SKUs (spec B 2.6, 4.6 addSku; get, list, page, update, delete are ours). */
const P = '/manage-api/sku';
const ALL = ['catalog:read', 'catalog:write'];

let t: TestApp;
let org: {
  merchantA: number;
  shopA1: number;
  shopA2: number;
  merchantB: number;
  shopB: number;
  spuA1: number;
  spuA1b: number;
  cardSpu: number;
  spuA2: number;
  spuB: number;
};
let platform: StaffSession;
let merchantA: StaffSession;
let shopA1: StaffSession;
let merchantB: StaffSession;
/** changes merchants and verifier relations through their own operations */
let ops: StaffSession;

beforeAll(async () => {
  t = await createTestApp();
  const mA = await createMerchant(t.db);
  const mB = await createMerchant(t.db);
  const sA1 = await createShop(t.db, { merchant_id: mA });
  const sA2 = await createShop(t.db, { merchant_id: mA });
  const sB = await createShop(t.db, { merchant_id: mB });
  org = {
    merchantA: mA,
    shopA1: sA1,
    shopA2: sA2,
    merchantB: mB,
    shopB: sB,
    spuA1: await createSpu(t.db, { shop_id: sA1 }),
    spuA1b: await createSpu(t.db, { shop_id: sA1 }),
    cardSpu: await createSpu(t.db, { shop_id: sA1, resource_type: 1, name: 'Annual tourism card' }),
    spuA2: await createSpu(t.db, { shop_id: sA2 }),
    spuB: await createSpu(t.db, { shop_id: sB }),
  };
  platform = await staffSession(t, { kind: 'platform', permissions: ALL });
  merchantA = await staffSession(t, { kind: 'merchant', merchantId: mA, permissions: ALL });
  shopA1 = await staffSession(t, { kind: 'shop', shopId: sA1, permissions: ALL });
  merchantB = await staffSession(t, { kind: 'merchant', merchantId: mB, permissions: ALL });
  ops = await staffSession(t, { kind: 'platform', permissions: ['merchant:write', 'checker:write'] });
});
const succeeds = async (path: string, body: object) =>
  expect((await t.post(`/manage-api${path}`, body, ops.token)).body).toMatchObject({ errcode: 0, errmsg: 'success' });
afterAll(() => t?.close());

type Entrance = {
  id: number;
  skuId: number;
  entranceName: string;
  merchantId: number | null;
  shopId: number | null;
  goodsId: number | null;
  createdBy: string | null;
  createdTime: string | null;
};
type SkuOut = Record<string, unknown> & {
  id: number;
  goodsId: number;
  skuName: string;
  mold: string | null;
  status: string;
  skuEntranceList: Entrance[];
};

const sku = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  goodsId: org.spuA1,
  skuName: uniq('Adult ticket '),
  ...over,
});
async function addOk(who: StaffSession, body: Record<string, unknown>): Promise<SkuOut> {
  const res = await t.post(`${P}/addSku`, body, who.token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data;
}
const get = async (id: number, who = platform) => (await t.post(`${P}/getSku`, { id }, who.token)).body.data as SkuOut;
const update = (who: StaffSession, body: Record<string, unknown>) => t.post(`${P}/updateSku`, body, who.token);

describe('rejection matrix', () => {
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/addSku`,
    permission: 'catalog:write',
    validBody: () => sku(),
    badInputs: [
      { body: () => ({ skuName: 'x' }), field: 'goodsId', rule: /goodsId is required/ },
      { body: () => ({ goodsId: org.spuA1 }), field: 'skuName', rule: /skuName is required/ },
      { body: () => sku({ mold: 4 }), field: 'mold', rule: /between 1 and 3/ },
      { body: () => sku({ showPrice: -1 }), field: 'showPrice' },
      { body: () => sku({ buyPrice: 9.99 }), field: 'buyPrice' },
      { body: () => sku({ buyCount: 0 }), field: 'buyCount' },
      { body: () => sku({ isLogistic: 'yes' }), field: 'isLogistic' },
      { body: () => sku({ useScoreRate: -0.5 }), field: 'useScoreRate' },
      { body: () => sku({ skuEntranceList: [{ id: 3 }] }), field: 'skuEntranceList[0].entranceName' },
      { body: () => sku({ skuEntranceList: 'east gate' }), field: 'skuEntranceList' },
      { body: () => sku({ cardNum: -3 }), field: 'cardNum' },
      { body: () => sku({ status: 4 }), field: 'status' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/updateSku`,
    permission: 'catalog:write',
    validBody: () => ({ id: 1, skuName: 'x' }),
    badInputs: [
      { body: () => ({ skuName: 'x' }), field: 'id', rule: /id is required/ },
      { body: () => ({ id: 1 }), field: 'skuName' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/deleteSku`,
    permission: 'catalog:write',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({ id: null }), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/getSku`,
    permission: 'catalog:read',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({}), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/querySkuList`,
    permission: 'catalog:read',
    validBody: () => ({}),
    badInputs: [{ body: () => ({ idList: [0] }), field: 'idList[0]' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/querySkuPage`,
    permission: 'catalog:read',
    validBody: () => ({}),
    badInputs: [{ body: () => ({ pageNum: 1.5 }), field: 'pageNum' }],
  });
});

describe('adding', () => {
  it("adds a SKU with every field and its entrances, owned by its resource's shop", async () => {
    const body = sku({
      skuName: 'Adult day ticket',
      goodsChannelId: 3,
      showPrice: 6000,
      buyPrice: 5500,
      costPrice: 4000,
      buyCount: 1,
      stock: 1000,
      isLogistic: false,
      carriageId: 9,
      mold: 3,
      isDistributes: true,
      commission: 300,
      isPreferential: true,
      isUseScore: true,
      isAddScore: false,
      useScoreRate: 0.125,
      addScoreRate: 1,
      skuEntranceList: [{ entranceName: ' East gate ' }, { entranceName: 'West gate' }],
    });
    const created = await addOk(merchantA, body);
    const { skuEntranceList: _, ...fields } = body;
    // Codes travel as strings (spec A 2.2): mold and status too.
    expect(created).toEqual({
      ...fields,
      mold: '3',
      id: expect.any(Number),
      cardNum: null,
      status: '1',
      skuEntranceList: expect.any(Array),
    });
    expect(created.skuEntranceList).toEqual(
      ['East gate', 'West gate'].map((entranceName) => ({
        id: expect.any(Number),
        skuId: created.id,
        entranceName,
        merchantId: org.merchantA,
        shopId: org.shopA1,
        goodsId: org.spuA1,
        createdBy: String(merchantA.userId),
        createdTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      })),
    );
    expect(await get(created.id, shopA1)).toEqual(created);
    // only the database shows the SKU's own merchant and shop (the answer shows its entrances')
    const row = await t.db
      .selectFrom('sku')
      .select(['merchant_id', 'shop_id'])
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ merchant_id: org.merchantA, shop_id: org.shopA1 });
  });

  it('takes cardNum only for tourism-card goods', async () => {
    expect((await addOk(merchantA, sku({ goodsId: org.cardSpu, cardNum: 5000 }))).cardNum).toBe(5000);
    expect((await t.post(`${P}/addSku`, sku({ cardNum: 10 }), merchantA.token)).body).toEqual({
      errcode: 400,
      errmsg: 'cardNum is invalid: only tourism-card goods (resourceType 1) issue cards',
    });
  });

  it('adds no SKU to goods of a disabled merchant (1_022_000_001), and does once it is enabled again', async () => {
    const name = `Closed group ${uniq()}`;
    const merchant = await createMerchant(t.db, { name, status: 0 });
    const goods = await createSpu(t.db, { shop_id: await createShop(t.db, { merchant_id: merchant }) });
    expect(
      (
        await t.post(
          `${P}/addSku`,
          sku({ goodsId: goods, skuEntranceList: [{ entranceName: 'East gate' }] }),
          platform.token,
        )
      ).body,
    ).toEqual({ errcode: 1_022_000_001, errmsg: `merchant "${name}" is disabled: enable it first` });
    expect((await t.post(`${P}/querySkuList`, { goodsId: goods }, platform.token)).body.data).toEqual([]);
    // only the database shows an entrance row left behind without its SKU
    expect(await t.db.selectFrom('sku_entrance').select('id').where('goods_id', '=', goods).execute()).toEqual([]);
    await succeeds('/merchant/updateMerchantStatus', { id: merchant, status: 1 });
    expect((await addOk(platform, sku({ goodsId: goods }))).goodsId).toBe(goods);
  });

  it('refuses rates with more than 4 decimals and an entrance listed twice', async () => {
    expect((await t.post(`${P}/addSku`, sku({ addScoreRate: 0.12345 }), merchantA.token)).body).toEqual({
      errcode: 400,
      errmsg: 'addScoreRate is invalid: at most 4 decimal places',
    });
    expect(
      (
        await t.post(
          `${P}/addSku`,
          sku({ skuEntranceList: [{ entranceName: 'Gate' }, { entranceName: 'Gate ' }] }),
          merchantA.token,
        )
      ).body,
    ).toEqual({ errcode: 400, errmsg: 'skuEntranceList is invalid: the entrance "Gate" is listed twice' });
  });

  it("refuses unknown goods (404) and goods outside the caller's scope (403)", async () => {
    expect((await t.post(`${P}/addSku`, sku({ goodsId: 999_999_999 }), platform.token)).body).toEqual({
      errcode: 404,
      errmsg: 'resource (goodsId) not found',
    });
    expect((await t.post(`${P}/addSku`, sku({ goodsId: org.spuB }), merchantA.token)).body).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another merchant',
    });
    expect((await t.post(`${P}/addSku`, sku({ goodsId: org.spuA2 }), shopA1.token)).body).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another shop',
    });
  });
});

describe('updating', () => {
  it('keeps absent fields and reconciles the entrance list: renamed, added, removed', async () => {
    const s = await addOk(
      merchantA,
      sku({ showPrice: 100, stock: 9, skuEntranceList: [{ entranceName: 'North' }, { entranceName: 'South' }] }),
    );
    const [north, south] = s.skuEntranceList;
    const upd = await update(merchantA, {
      id: s.id,
      skuName: 'Renamed',
      stock: 10,
      status: '3',
      mold: '2',
      skuEntranceList: [{ id: north.id, entranceName: 'North gate' }, { entranceName: 'Lake pier' }],
    });
    expect(upd.body).toEqual({ errcode: 0, errmsg: 'success' });
    const after = await get(s.id);
    // Codes are taken as numeric strings as well as numbers, and answered as strings.
    expect(after).toMatchObject({ skuName: 'Renamed', showPrice: 100, stock: 10, status: '3', mold: '2' });
    expect(after.skuEntranceList.map((e) => [e.id === north.id, e.entranceName])).toEqual([
      [true, 'North gate'],
      [false, 'Lake pier'],
    ]);
    // only the database shows the removed entrance kept for history, marked deleted
    const gone = await t.db
      .selectFrom('sku_entrance')
      .select('is_deleted')
      .where('id', '=', south.id)
      .executeTakeFirstOrThrow();
    expect(gone.is_deleted).toBe(true);
    // Without skuEntranceList the entrances stay as they are.
    await update(merchantA, { id: s.id, skuName: 'Renamed again' });
    expect((await get(s.id)).skuEntranceList).toEqual(after.skuEntranceList);
  });

  it('refuses an entrance id of another SKU, and removing a gate a verifier is posted at', async () => {
    const s = await addOk(merchantA, sku({ skuEntranceList: [{ entranceName: 'Main' }] }));
    const other = await addOk(merchantA, sku({ skuEntranceList: [{ entranceName: 'Other' }] }));
    const foreign = other.skuEntranceList[0].id;
    expect(
      (await update(merchantA, { id: s.id, skuName: 'x', skuEntranceList: [{ id: foreign, entranceName: 'Stolen' }] }))
        .body,
    ).toEqual({ errcode: 400, errmsg: `skuEntranceList[0].id is invalid: ${foreign} is not an entrance of this SKU` });
    const gate = s.skuEntranceList[0].id;
    const checker = await createChecker(t.db, { merchant_id: org.merchantA });
    const relation = await createCheckerRelation(t.db, { checker_id: checker.id, sku_id: s.id, entrance_id: gate });
    expect((await update(merchantA, { id: s.id, skuName: 'x', skuEntranceList: [] })).body).toEqual({
      errcode: 409,
      errmsg: `the entrance "Main" is still referenced by 1 verifier relation (id ${relation}): remove or move those first`,
    });
    expect((await get(s.id)).skuEntranceList).toHaveLength(1);
  });

  it('takes no cardNum on goods that are not a tourism card, on update either', async () => {
    // A cardNum a type change left on such goods was cleared once by migration 0028 (sku-card-num-migration.test.ts).
    const plain = await addOk(merchantA, sku());
    expect((await update(merchantA, { id: plain.id, skuName: 'Renamed' })).body).toEqual({
      errcode: 0,
      errmsg: 'success',
    });
    expect(await get(plain.id)).toMatchObject({ skuName: 'Renamed', cardNum: null });
    expect((await update(merchantA, { id: plain.id, skuName: 'Renamed', cardNum: 5 })).body).toEqual({
      errcode: 400,
      errmsg: 'cardNum is invalid: only tourism-card goods (resourceType 1) issue cards',
    });
    // On tourism-card goods an absent cardNum keeps it, and a card SKU does not move to other goods with it.
    const card = await addOk(merchantA, sku({ goodsId: org.cardSpu, cardNum: 300 }));
    expect((await update(merchantA, { id: card.id, skuName: 'Card renamed' })).body.errcode).toBe(0);
    expect((await get(card.id)).cardNum).toBe(300);
    expect((await update(merchantA, { id: card.id, skuName: 'Card moved', goodsId: org.spuA1 })).body.errcode).toBe(
      400,
    );
    expect((await get(card.id)).goodsId).toBe(org.cardSpu);
  });

  it('moves a SKU to another resource of the same shop only', async () => {
    const s = await addOk(merchantA, sku({ skuEntranceList: [{ entranceName: 'Gate' }] }));
    expect((await update(merchantA, { id: s.id, skuName: 'Moved', goodsId: org.spuA1b })).body.errcode).toBe(0);
    const moved = await get(s.id);
    expect(moved.goodsId).toBe(org.spuA1b);
    expect(moved.skuEntranceList[0].goodsId).toBe(org.spuA1b);
    expect((await update(merchantA, { id: s.id, skuName: 'Moved', goodsId: org.spuA2 })).body).toEqual({
      errcode: 409,
      errmsg: 'goodsId is invalid: a SKU can move only to another resource of the same shop',
    });
    expect((await update(merchantA, { id: s.id, skuName: 'Moved', goodsId: org.spuB })).body.errcode).toBe(403);
  });
});

describe('deleting', () => {
  it('refuses while card models, verifier relations or ticket kinds refer to it, naming them', async () => {
    const s = await addOk(merchantA, sku({ skuEntranceList: [{ entranceName: 'Gate' }] }));
    const model = await createCardModel(t.db, { sku_id: s.id });
    const checker = await createChecker(t.db, { merchant_id: org.merchantA });
    const relation = await createCheckerRelation(t.db, { checker_id: checker.id, sku_id: s.id });
    const ticket = await createTicketsSku(t.db, { sku_id: s.id });
    expect((await t.post(`${P}/deleteSku`, { id: s.id }, merchantA.token)).body).toEqual({
      errcode: 409,
      errmsg: `the SKU is still referenced by 1 card model (id ${model}), 1 verifier relation (id ${relation}) and 1 ticket kind (id ${ticket}): remove or move those first`,
    });
    // Written directly: the card module deletes no card model, and the catalog module removes no ticket kind.
    await t.db.updateTable('card_model').set({ is_deleted: true }).where('id', '=', model).execute();
    await succeeds('/checker/updateCheckerRelation', { checkerId: checker.id, relations: [] });
    await t.db.updateTable('tickets_sku').set({ is_deleted: true }).where('id', '=', ticket).execute();
    expect((await t.post(`${P}/deleteSku`, { id: s.id }, merchantA.token)).body).toEqual({
      errcode: 0,
      errmsg: 'success',
    });
    expect((await t.post(`${P}/getSku`, { id: s.id }, merchantA.token)).body).toEqual({
      errcode: 404,
      errmsg: 'SKU not found',
    });
    // only the database shows the entrances kept for history, marked deleted with their SKU
    const gates = await t.db.selectFrom('sku_entrance').select('is_deleted').where('sku_id', '=', s.id).execute();
    expect(gates).toEqual([{ is_deleted: true }]);
  });
});

describe('scoping and lists', () => {
  it("refuses another merchant's or shop's SKU with 403 on every operation", async () => {
    const theirs = await addOk(merchantB, sku({ goodsId: org.spuB }));
    const refused = { errcode: 403, errmsg: 'the record belongs to another merchant' };
    expect((await t.post(`${P}/getSku`, { id: theirs.id }, merchantA.token)).body).toEqual(refused);
    expect((await update(merchantA, { id: theirs.id, skuName: 'Taken' })).body).toEqual(refused);
    expect((await t.post(`${P}/deleteSku`, { id: theirs.id }, merchantA.token)).body).toEqual(refused);
    const sibling = await addOk(merchantA, sku({ goodsId: org.spuA2 }));
    expect((await t.post(`${P}/getSku`, { id: sibling.id }, shopA1.token)).body).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another shop',
    });
  });

  it('lists and pages what the caller may see, each SKU with its entrances', async () => {
    const tag = uniq('sku');
    const a = await addOk(
      merchantA,
      sku({ skuName: `${tag} adult`, mold: 1, skuEntranceList: [{ entranceName: 'A' }] }),
    );
    const a2 = await addOk(merchantA, sku({ skuName: `${tag} child`, goodsId: org.spuA2, mold: 2, status: 2 }));
    const b = await addOk(merchantB, sku({ skuName: `${tag} far`, goodsId: org.spuB }));
    const list = async (who: StaffSession, f: object = {}) =>
      (await t.post(`${P}/querySkuList`, { keywords: tag, ...f }, who.token)).body.data as SkuOut[];
    expect((await list(platform)).map((s) => s.id)).toEqual([b.id, a2.id, a.id]);
    expect((await list(merchantA)).map((s) => s.id)).toEqual([a2.id, a.id]);
    expect((await list(shopA1)).map((s) => s.id)).toEqual([a.id]);
    expect((await list(merchantA, { mold: 2 })).map((s) => s.id)).toEqual([a2.id]);
    expect((await list(merchantA, { mold: '2' })).map((s) => [s.id, s.mold, s.status])).toEqual([[a2.id, '2', '2']]);
    expect((await list(platform, { status: '2' })).every((s) => s.status === '2')).toBe(true);
    expect((await list(merchantA, { status: 1, goodsId: org.spuA1 })).map((s) => s.id)).toEqual([a.id]);
    expect((await list(merchantA, { shopId: org.shopA2 })).map((s) => s.id)).toEqual([a2.id]);
    expect((await list(merchantA, { skuName: 'ADULT' })).map((s) => s.id)).toEqual([a.id]);
    const page = await t.post(`${P}/querySkuPage`, { keywords: tag, pageSize: 2 }, merchantA.token);
    expect(page.body.data.total).toBe(2);
    expect(page.body.data.list[1]).toEqual(a);
  });

  it('logs add, update and delete', async () => {
    const s = await addOk(merchantA, sku());
    await update(merchantA, { id: s.id, skuName: 'Logged' });
    await t.post(`${P}/deleteSku`, { id: s.id }, merchantA.token);
    // only the database shows the operation log
    const rows = await t.db
      .selectFrom('operate_log')
      .select(['module', 'action', 'success'])
      .where('account_id', '=', merchantA.userId)
      .where('biz_id', '=', String(s.id))
      .orderBy('id')
      .execute();
    expect(rows.map((r) => r.action)).toEqual(['新增SKU', '修改SKU', '删除SKU']);
    expect(rows.every((r) => r.module === '商品规格' && r.success)).toBe(true);
  });
});
