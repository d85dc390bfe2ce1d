import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, createShop, uniq } from '../helpers/factories.js';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/** Merchant contracts (spec B 2.6, 4.6 addMerchantContract; get, list, page, update, delete are ours). */
const P = '/manage-api/merchantContract';
const ALL = ['contract:read', 'contract:write'];

let t: TestApp;
let o: {
  platformM: number;
  lake: number;
  lakeShop: number;
  lakeShop2: number;
  bank: number;
  bankShop: number;
  other: number;
};
let names: Record<string, string>;
let platform: StaffSession;
let lake: StaffSession;
let lakeShop: StaffSession;
let bank: StaffSession;
let other: StaffSession;
/** disables and enables merchants through their own operation */
let ops: StaffSession;

beforeAll(async () => {
  t = await createTestApp();
  names = {
    platformM: `Platform ${uniq()}`,
    lake: `Lakeside Group ${uniq()}`,
    lakeShop: `North Gate ${uniq()}`,
    bank: `City Bank ${uniq()}`,
    bankShop: `Bank Branch ${uniq()}`,
  };
  const platformM = await createMerchant(t.db, { name: names.platformM });
  const lakeId = await createMerchant(t.db, { name: names.lake });
  const bankId = await createMerchant(t.db, { name: names.bank });
  o = {
    platformM,
    lake: lakeId,
    lakeShop: await createShop(t.db, { merchant_id: lakeId, name: names.lakeShop }),
    lakeShop2: await createShop(t.db, { merchant_id: lakeId }),
    bank: bankId,
    bankShop: await createShop(t.db, { merchant_id: bankId, name: names.bankShop }),
    other: await createMerchant(t.db),
  };
  platform = await staffSession(t, { kind: 'platform', permissions: ALL });
  lake = await staffSession(t, { kind: 'merchant', merchantId: o.lake, permissions: ALL });
  lakeShop = await staffSession(t, { kind: 'shop', shopId: o.lakeShop, permissions: ALL });
  bank = await staffSession(t, { kind: 'merchant', merchantId: o.bank, permissions: ALL });
  other = await staffSession(t, { kind: 'merchant', merchantId: o.other, permissions: ALL });
  ops = await staffSession(t, { kind: 'platform', permissions: ['merchant:write'] });
});
afterAll(() => t?.close());

type ContractOut = Record<string, unknown> & { id: number; party: number };
const contract = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  contractType: 3,
  merchantA: String(o.lake),
  merchantB: String(o.bank),
  ...over,
});
async function addOk(who: StaffSession, body: Record<string, unknown>): Promise<ContractOut> {
  const res = await t.post(`${P}/addMerchantContract`, body, who.token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data;
}
const get = (id: number, who: StaffSession) =>
  t.post(`${P}/getMerchantContract`, { id }, who.token).then((r) => r.body);
/** every living contract the platform sees (that is, all of them) */
const allContracts = async (f: object = {}) =>
  (await t.post(`${P}/queryMerchantContractList`, f, platform.token)).body.data as ContractOut[];

describe('rejection matrix', () => {
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/addMerchantContract`,
    permission: 'contract:write',
    validBody: () => contract(),
    // Nothing is required (spec B 2.6): `{}` is added below ("the spec's smallest request").
    badInputs: [
      { body: () => contract({ contractType: 4 }), field: 'contractType', rule: /between 1 and 3/ },
      { body: () => contract({ merchantA: 'lake' }), field: 'merchantA' },
      { body: () => contract({ merchantA: 0 }), field: 'merchantA' },
      { body: () => contract({ merchantB: 1.5 }), field: 'merchantB' },
      { body: () => contract({ shopB: '-3' }), field: 'shopB' },
      { body: () => contract({ signTime: 'yesterday' }), field: 'signTime' },
      { body: () => contract({ beginDate: '2026-02-30' }), field: 'beginDate' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/updateMerchantContract`,
    permission: 'contract:write',
    validBody: () => ({ id: 1, ...contract() }),
    badInputs: [{ body: () => contract(), field: 'id', rule: /id is required/ }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/deleteMerchantContract`,
    permission: 'contract:write',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({}), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/getMerchantContract`,
    permission: 'contract:read',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({ id: 'x' }), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/queryMerchantContractList`,
    permission: 'contract:read',
    validBody: () => ({}),
    badInputs: [{ body: () => ({ signTimeRange: ['2026-01-01'] }), field: 'signTimeRange' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/queryMerchantContractPage`,
    permission: 'contract:read',
    validBody: () => ({}),
    badInputs: [{ body: () => ({ contractType: 9 }), field: 'contractType' }],
  });
});

describe('adding', () => {
  it('resolves the party names and tells the caller its side', async () => {
    const c = await addOk(
      lake,
      contract({
        contractType: 2,
        shopA: String(o.lakeShop),
        shopB: String(o.bankShop),
        signTime: '2026-03-01 10:30:00',
        beginDate: '2026-04-01',
        endDate: '2027-03-31',
      }),
    );
    expect(c).toEqual({
      id: expect.any(Number),
      merchantId: o.lake,
      shopId: null,
      contractType: 2,
      merchantA: String(o.lake),
      shopA: String(o.lakeShop),
      merchantB: String(o.bank),
      shopB: String(o.bankShop),
      signTime: '2026-03-01 10:30:00',
      beginDate: '2026-04-01 00:00:00',
      endDate: '2027-03-31 23:59:59',
      merchantAName: names.lake,
      shopAName: names.lakeShop,
      merchantBName: names.bank,
      shopBName: names.bankShop,
      party: 1,
    });
    expect((await get(c.id, bank)).data.party).toBe(2);
    expect((await get(c.id, platform)).data.party).toBe(0);
    expect((await get(c.id, lakeShop)).data.party).toBe(1);
  });

  it('refuses unknown parties (404), a shop of another merchant (400), the same party twice and an end before the beginning', async () => {
    expect(
      (await t.post(`${P}/addMerchantContract`, contract({ merchantB: '999999999' }), platform.token)).body,
    ).toEqual({ errcode: 404, errmsg: 'merchantB not found' });
    expect((await t.post(`${P}/addMerchantContract`, contract({ shopA: '999999999' }), platform.token)).body).toEqual({
      errcode: 404,
      errmsg: 'shopA not found',
    });
    expect(
      (await t.post(`${P}/addMerchantContract`, contract({ shopA: String(o.bankShop) }), platform.token)).body,
    ).toEqual({ errcode: 400, errmsg: 'shopA is invalid: not a shop of merchantA' });
    expect(
      (await t.post(`${P}/addMerchantContract`, contract({ merchantB: String(o.lake) }), platform.token)).body,
    ).toEqual({ errcode: 400, errmsg: 'merchantB is invalid: party A and party B are the same' });
    expect(
      (
        await t.post(
          `${P}/addMerchantContract`,
          contract({ beginDate: '2026-05-02', endDate: '2026-05-01' }),
          platform.token,
        )
      ).body,
    ).toEqual({ errcode: 400, errmsg: 'endDate is invalid: it is before beginDate' });
    // One day is fine: a bare end date covers that whole day.
    await addOk(platform, contract({ beginDate: '2026-05-01', endDate: '2026-05-01' }));
    // Two shops of one merchant may sign with each other.
    await addOk(
      platform,
      contract({ merchantB: String(o.lake), shopA: String(o.lakeShop), shopB: String(o.lakeShop2) }),
    );
  });

  it('lets merchant and shop users record only contracts their merchant or shop is a party to', async () => {
    expect((await t.post(`${P}/addMerchantContract`, contract(), other.token)).body).toEqual({
      errcode: 403,
      errmsg: 'your merchant or shop is neither party A nor party B of this contract',
    });
    expect((await t.post(`${P}/addMerchantContract`, contract({ merchantId: o.bank }), lake.token)).body.errcode).toBe(
      403,
    );
    const byShop = await addOk(lakeShop, contract({ shopA: String(o.lakeShop) }));
    expect(byShop).toMatchObject({ merchantId: o.lake, shopId: o.lakeShop, party: 1 });
    expect(
      (await t.post(`${P}/addMerchantContract`, contract({ shopA: String(o.lakeShop2) }), lakeShop.token)).body.errcode,
    ).toBe(403);
  });
});

describe('shop users', () => {
  it('record a contract only as their own shop, never for their whole merchant', async () => {
    const refused = { errcode: 403, errmsg: 'your merchant or shop is neither party A nor party B of this contract' };
    expect((await t.post(`${P}/addMerchantContract`, contract(), lakeShop.token)).body).toEqual(refused);
    expect(
      (
        await t.post(
          `${P}/addMerchantContract`,
          contract({ merchantA: String(o.other), merchantB: String(o.lake) }),
          lakeShop.token,
        )
      ).body,
    ).toEqual(refused);
    expect(
      (await t.post(`${P}/addMerchantContract`, contract({ shopB: String(o.bankShop) }), lakeShop.token)).body,
    ).toEqual(refused);
    const asB = await addOk(
      lakeShop,
      contract({ merchantA: String(o.bank), merchantB: String(o.lake), shopB: String(o.lakeShop) }),
    );
    expect(asB).toMatchObject({ merchantId: o.lake, shopId: o.lakeShop, party: 2 });
    const kept = (await allContracts()).filter((c) => c.shopId === o.lakeShop && c.shopA === null && c.shopB === null);
    expect(kept).toEqual([]);
  });

  it('do not re-point a contract they keep away from their shop', async () => {
    const c = await addOk(lakeShop, contract({ shopA: String(o.lakeShop), endDate: '2027-01-31' }));
    const upd = (body: Record<string, unknown>) =>
      t.post(`${P}/updateMerchantContract`, { id: c.id, ...body }, lakeShop.token).then((r) => r.body);
    const refused = { errcode: 403, errmsg: 'your merchant or shop is neither party A nor party B of this contract' };
    expect(await upd(contract({ shopA: '' }))).toEqual(refused);
    expect(await upd(contract({ merchantB: String(o.other), shopA: '' }))).toEqual(refused);
    expect(await upd(contract({ merchantA: String(o.bank), shopA: '', merchantB: String(o.lake), shopB: '' }))).toEqual(
      refused,
    );
    expect((await get(c.id, lake)).data).toMatchObject({
      merchantA: String(o.lake),
      shopA: String(o.lakeShop),
      merchantB: String(o.bank),
      shopB: null,
    });
    // Its shop may move to the other side, and the rest may change.
    expect(
      await upd(
        contract({
          merchantA: String(o.bank),
          shopA: '',
          merchantB: String(o.lake),
          shopB: String(o.lakeShop),
          contractType: 1,
        }),
      ),
    ).toEqual({ errcode: 0, errmsg: 'success' });
    expect((await get(c.id, lakeShop)).data).toMatchObject({
      merchantA: String(o.bank),
      shopA: null,
      shopB: String(o.lakeShop),
      contractType: 1,
      party: 2,
    });
  });
});

describe('disabled merchants', () => {
  const disabledMerchant = async () => {
    const name = `Closed ${uniq()}`;
    const id = await createMerchant(t.db, { name });
    return {
      id,
      name,
      shop: await createShop(t.db, { merchant_id: id }),
      disabled: { errcode: 1_022_000_001, errmsg: `merchant "${name}" is disabled: enable it first` },
    };
  };
  const disable = async (id: number, status = 0) =>
    expect((await t.post('/manage-api/merchant/updateMerchantStatus', { id, status }, ops.token)).body).toEqual({
      errcode: 0,
      errmsg: 'success',
    });
  const living = async (m: number) =>
    (await allContracts()).filter((c) => c.merchantId === m || c.merchantA === String(m) || c.merchantB === String(m));

  it('record no contract kept by a disabled merchant or naming one as a party (1_022_000_001)', async () => {
    const d = await disabledMerchant();
    await disable(d.id);
    const add = (body: Record<string, unknown>) =>
      t.post(`${P}/addMerchantContract`, body, platform.token).then((r) => r.body);
    expect(
      await add(contract({ merchantA: String(d.id), shopA: String(d.shop), merchantId: d.id, shopId: d.shop })),
    ).toEqual(d.disabled);
    expect(await add(contract({ merchantId: d.id }))).toEqual(d.disabled);
    expect(await add(contract({ merchantB: String(d.id), shopB: String(d.shop) }))).toEqual(d.disabled);
    expect((await t.post(`${P}/addMerchantContract`, contract({ merchantB: String(d.id) }), lake.token)).body).toEqual(
      d.disabled,
    );
    expect(await living(d.id)).toEqual([]);
    await disable(d.id, 1);
    expect(await addOk(platform, contract({ merchantB: String(d.id), merchantId: d.id }))).toMatchObject({
      merchantId: d.id,
      merchantB: String(d.id),
    });
  });

  it('let a contract already naming a merchant be changed after it is disabled, but name no disabled merchant anew', async () => {
    const d = await disabledMerchant();
    const c = await addOk(lake, contract({ merchantB: String(d.id) }));
    const spare = await addOk(lake, contract());
    await disable(d.id);
    const upd = (id: number, body: Record<string, unknown>) =>
      t.post(`${P}/updateMerchantContract`, { id, ...body }, lake.token).then((r) => r.body);
    expect(await upd(c.id, contract({ merchantB: String(d.id), endDate: '2027-06-30' }))).toEqual({
      errcode: 0,
      errmsg: 'success',
    });
    expect(await upd(spare.id, contract({ merchantB: String(d.id) }))).toEqual(d.disabled);
    expect(await upd(spare.id, contract({ merchantB: String(d.id), shopB: String(d.shop) }))).toEqual(d.disabled);
    expect((await get(spare.id, lake)).data.merchantB).toBe(String(o.bank));
    expect((await living(d.id)).map((r) => r.id)).toEqual([c.id]);
  });
});

describe('a shop deleted while contracts name it', () => {
  it('either refuses the delete (409) or the adds (404): never a deleted shop with living contracts', async () => {
    const admin = await staffSession(t, { kind: 'platform', permissions: [...ALL, 'shop:read', 'shop:write'] });
    // The adds start while the delete is under way (it holds the shop's row), or together with it.
    for (const delayMs of [0, 2, 4, 8]) {
      const shop = await createShop(t.db, { merchant_id: o.lake });
      const deleting = t.post('/manage-api/shop/deleteShop', { id: shop }, admin.token);
      await new Promise((r) => setTimeout(r, delayMs));
      const adds = Array.from({ length: 10 }, () =>
        t.post(`${P}/addMerchantContract`, contract({ shopA: String(shop) }), admin.token),
      );
      const [removed, ...added] = await Promise.all([deleting, ...adds]);
      for (const a of added) expect([0, 404], JSON.stringify(a.body)).toContain(a.body.errcode);
      expect([0, 409], JSON.stringify(removed.body)).toContain(removed.body.errcode);
      const got = (await t.post('/manage-api/shop/getShop', { id: shop }, admin.token)).body;
      expect([0, 404]).toContain(got.errcode);
      const shopDeleted = got.errcode === 404;
      const naming = (await allContracts({ merchantA: String(o.lake) })).filter((c) => c.shopA === String(shop));
      const ok = added.filter((a) => a.body.errcode === 0).length;
      expect(naming.length).toBe(ok);
      expect(shopDeleted).toBe(removed.body.errcode === 0);
      if (shopDeleted) expect(naming).toEqual([]);
      else expect(ok).toBeGreaterThan(0);
    }
  });
});

describe('changing', () => {
  it('updates and deletes a contract its keeper keeps; the other party may read but not change it', async () => {
    const c = await addOk(lake, contract({ beginDate: '2026-01-01', endDate: '2026-12-31' }));
    const upd = await t.post(
      `${P}/updateMerchantContract`,
      { id: c.id, ...contract({ contractType: 1, endDate: '2027-12-31' }) },
      lake.token,
    );
    expect(upd.body).toEqual({ errcode: 0, errmsg: 'success' });
    // Absent optional fields are kept, "" clears one.
    expect((await get(c.id, bank)).data).toMatchObject({
      contractType: 1,
      beginDate: '2026-01-01 00:00:00',
      endDate: '2027-12-31 23:59:59',
      merchantId: o.lake,
    });
    await t.post(`${P}/updateMerchantContract`, { id: c.id, ...contract({ beginDate: '' }) }, lake.token);
    expect((await get(c.id, bank)).data).toMatchObject({ beginDate: null, endDate: '2027-12-31 23:59:59' });
    const refused = { errcode: 403, errmsg: 'only the merchant (or shop) that keeps the contract may change it' };
    expect((await t.post(`${P}/updateMerchantContract`, { id: c.id, ...contract() }, bank.token)).body).toEqual(
      refused,
    );
    expect((await t.post(`${P}/deleteMerchantContract`, { id: c.id }, bank.token)).body).toEqual(refused);
    expect(
      (
        await t.post(
          `${P}/updateMerchantContract`,
          { id: c.id, ...contract({ beginDate: '2028-01-01', endDate: '2027-01-01' }) },
          lake.token,
        )
      ).body.errcode,
    ).toBe(400);
    expect((await t.post(`${P}/deleteMerchantContract`, { id: c.id }, lake.token)).body).toEqual({
      errcode: 0,
      errmsg: 'success',
    });
    expect(await get(c.id, lake)).toEqual({ errcode: 404, errmsg: 'merchant contract not found' });
  });

  it('refuses a stranger with 403 on every operation', async () => {
    const c = await addOk(lake, contract());
    const refused = { errcode: 403, errmsg: 'the record belongs to another merchant' };
    expect(await get(c.id, other)).toEqual(refused);
    expect((await t.post(`${P}/updateMerchantContract`, { id: c.id, ...contract() }, other.token)).body).toEqual(
      refused,
    );
    expect((await t.post(`${P}/deleteMerchantContract`, { id: c.id }, other.token)).body).toEqual(refused);
  });
});

describe('lists', () => {
  it('lists what the caller keeps or is a party to, with the filters', async () => {
    const tagMerchant = await createMerchant(t.db, { name: `Tag ${uniq()}` });
    const m = String(tagMerchant);
    const c1 = await addOk(platform, contract({ merchantB: m, contractType: 1, signTime: '2026-01-10' }));
    const c2 = await addOk(
      platform,
      contract({ merchantA: String(o.bank), merchantB: m, contractType: 2, signTime: '2026-02-10' }),
    );
    const c3 = await addOk(platform, contract({ merchantA: String(o.other), merchantB: m, contractType: 3 }));
    const ids = async (who: StaffSession, f: object = {}) =>
      (
        (await t.post(`${P}/queryMerchantContractList`, { merchantB: m, ...f }, who.token)).body.data as ContractOut[]
      ).map((c) => c.id);
    expect(await ids(platform)).toEqual([c3.id, c2.id, c1.id]);
    expect(await ids(lake)).toEqual([c1.id]);
    expect(await ids(bank)).toEqual([c2.id]);
    expect(await ids(platform, { contractType: 2 })).toEqual([c2.id]);
    expect(await ids(platform, { merchantA: String(o.other) })).toEqual([c3.id]);
    expect(await ids(platform, { signTimeRange: ['2026-02-01', '2026-02-28'] })).toEqual([c2.id]);
    expect(await ids(platform, { keywords: 'city bank' })).toEqual([c2.id]);
    const page = await t.post(`${P}/queryMerchantContractPage`, { merchantB: m, pageSize: 2 }, platform.token);
    expect(page.body.data.total).toBe(3);
    expect(page.body.data.list.map((c: ContractOut) => c.id)).toEqual([c3.id, c2.id]);
  });

  it('logs add, update and delete', async () => {
    const c = await addOk(lake, contract());
    await t.post(`${P}/updateMerchantContract`, { id: c.id, ...contract() }, lake.token);
    await t.post(`${P}/deleteMerchantContract`, { id: c.id }, lake.token);
    // only the database shows the operation log
    const rows = await t.db
      .selectFrom('operate_log')
      .select(['module', 'action', 'success'])
      .where('account_id', '=', lake.userId)
      .where('biz_id', '=', String(c.id))
      .orderBy('id')
      .execute();
    expect(rows.map((r) => r.action)).toEqual(['新增合同', '修改合同', '删除合同']);
    expect(rows.every((r) => r.module === '商户合同' && r.success)).toBe(true);
  });
});

/**
 * Spec B 2.6: MerchantContractAddRequest stars nothing, and types the parties as String. `{}` records a
 * contract kept by the caller, contractType 1, party A the keeper, party B open until it is named.
 */
describe("the spec's smallest request", () => {
  // only the database shows the author (created_by) and the operation log
  const stored = (id: number) =>
    t.db
      .selectFrom('merchant_contract')
      .select(['merchant_id', 'shop_id', 'contract_type', 'merchant_a', 'shop_a', 'merchant_b', 'shop_b', 'created_by'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const upd = (who: StaffSession, body: Record<string, unknown>) =>
    t.post(`${P}/updateMerchantContract`, body, who.token).then((r) => r.body);

  it('takes {} from a merchant user: kept by its merchant, party A its merchant, party B open; logged', async () => {
    const c = await addOk(lake, {});
    expect(c).toEqual({
      id: expect.any(Number),
      merchantId: o.lake,
      shopId: null,
      contractType: 1,
      merchantA: String(o.lake),
      shopA: null,
      merchantB: null,
      shopB: null,
      signTime: null,
      beginDate: null,
      endDate: null,
      merchantAName: names.lake,
      shopAName: null,
      merchantBName: null,
      shopBName: null,
      party: 1,
    });
    expect(await stored(c.id)).toEqual({
      merchant_id: o.lake,
      shop_id: null,
      contract_type: 1,
      merchant_a: o.lake,
      shop_a: null,
      merchant_b: null,
      shop_b: null,
      created_by: lake.userId,
    });
    const log = await t.db
      .selectFrom('operate_log')
      .select(['module', 'action', 'success'])
      .where('account_id', '=', lake.userId)
      .where('biz_id', '=', String(c.id))
      .execute();
    expect(log).toEqual([{ module: '商户合同', action: '新增合同', success: true }]);
  });

  it('takes {} from a shop user (party A its shop) and from platform staff (kept by the platform, both parties open)', async () => {
    expect(await addOk(lakeShop, {})).toMatchObject({
      merchantId: o.lake,
      shopId: o.lakeShop,
      merchantA: String(o.lake),
      shopA: String(o.lakeShop),
      shopAName: names.lakeShop,
      merchantB: null,
      party: 1,
    });
    const byPlatform = await addOk(platform, {});
    expect(byPlatform).toMatchObject({
      merchantId: null,
      shopId: null,
      contractType: 1,
      merchantA: null,
      shopA: null,
      merchantB: null,
      shopB: null,
      party: 0,
    });
    expect((await get(byPlatform.id, lake)).errcode).toBe(403);
    // A platform user naming a keeper makes it party A.
    expect(await addOk(platform, { merchantId: o.bank })).toMatchObject({
      merchantId: o.bank,
      merchantA: String(o.bank),
      merchantB: null,
    });
  });

  it("takes the parties as digit strings or numbers, answers them as strings, and names a shop's merchant for it", async () => {
    const numeric = await addOk(platform, {
      contractType: 2,
      merchantA: o.lake,
      shopA: o.lakeShop,
      merchantB: o.bank,
      shopB: String(o.bankShop),
    });
    expect(numeric).toMatchObject({
      merchantA: String(o.lake),
      shopA: String(o.lakeShop),
      merchantB: String(o.bank),
      shopB: String(o.bankShop),
      merchantBName: names.bank,
      shopBName: names.bankShop,
    });
    const byShops = await addOk(platform, { shopA: String(o.lakeShop), shopB: o.bankShop });
    expect(byShops).toMatchObject({
      merchantA: String(o.lake),
      shopA: String(o.lakeShop),
      merchantB: String(o.bank),
      shopB: String(o.bankShop),
    });
    expect((await t.post(`${P}/addMerchantContract`, { shopB: 999_999_999 }, platform.token)).body).toEqual({
      errcode: 404,
      errmsg: 'shopB not found',
    });
    expect(
      (await t.post(`${P}/addMerchantContract`, { merchantA: o.lake, shopA: o.bankShop }, platform.token)).body,
    ).toEqual({ errcode: 400, errmsg: 'shopA is invalid: not a shop of merchantA' });
    const filtered = (
      await t.post(
        `${P}/queryMerchantContractList`,
        { merchantA: o.lake, merchantB: o.bank, idList: [numeric.id, byShops.id] },
        platform.token,
      )
    ).body;
    expect(filtered.data.map((c: ContractOut) => c.id)).toEqual([byShops.id, numeric.id]);
  });

  it('leaves party A open when the keeper is named as party B, and refuses a stranger naming neither side as itself (403)', async () => {
    expect(await addOk(lake, { merchantB: String(o.lake) })).toMatchObject({
      merchantA: null,
      merchantB: String(o.lake),
      party: 2,
    });
    expect((await t.post(`${P}/addMerchantContract`, { merchantA: o.bank }, lake.token)).body).toEqual({
      errcode: 403,
      errmsg: 'your merchant or shop is neither party A nor party B of this contract',
    });
  });

  it('names party B later; only then does party B see it; an update of {id} alone changes nothing', async () => {
    const c = await addOk(lake, { contractType: 3 });
    expect(await get(c.id, bank)).toEqual({ errcode: 403, errmsg: 'the record belongs to another merchant' });
    expect(await upd(lake, { id: c.id })).toEqual({ errcode: 0, errmsg: 'success' });
    expect((await get(c.id, lake)).data).toEqual(c);
    expect(await upd(lake, { id: c.id, merchantB: o.bank, signTime: '2026-06-01' })).toEqual({
      errcode: 0,
      errmsg: 'success',
    });
    expect((await get(c.id, bank)).data).toMatchObject({
      contractType: 3,
      merchantA: String(o.lake),
      merchantB: String(o.bank),
      party: 2,
      signTime: '2026-06-01 00:00:00',
    });
    // The keeper may not take itself out of the contract; "" opens a party again where that is allowed.
    expect(await upd(lake, { id: c.id, merchantA: '' })).toEqual({
      errcode: 403,
      errmsg: 'your merchant or shop is neither party A nor party B of this contract',
    });
    expect(await upd(lake, { id: c.id, merchantB: '' })).toEqual({ errcode: 0, errmsg: 'success' });
    expect((await get(c.id, lake)).data).toMatchObject({ merchantA: String(o.lake), merchantB: null, contractType: 3 });
    const logs = await t.db
      .selectFrom('operate_log')
      .select('action')
      .where('biz_id', '=', String(c.id))
      .where('module', '=', '商户合同')
      .where('success', '=', true)
      .orderBy('id')
      .execute();
    expect(logs.map((l) => l.action)).toEqual(['新增合同', '修改合同', '修改合同', '修改合同']);
  });
});
