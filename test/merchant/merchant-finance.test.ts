import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, createShop } from '../helpers/factories.js';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/** Merchant finance accounts (spec B 2.3 MerchantFinance): the rejection matrix, scoping, one account per owner and kind, logs. */
const P = '/manage-api/merchantFinance';
const ALL = ['merchantFinance:read', 'merchantFinance:write'];

let t: TestApp;
let org: { merchantA: number; shopA1: number; shopA2: number; merchantB: number; shopB1: number };
let platform: StaffSession;
let merchantA: StaffSession;
let shopA1: StaffSession;
let shopA2: StaffSession;
let merchantB: StaffSession;

beforeAll(async () => {
  t = await createTestApp();
  const merchantAId = await createMerchant(t.db);
  const merchantBId = await createMerchant(t.db);
  org = {
    merchantA: merchantAId,
    shopA1: await createShop(t.db, { merchant_id: merchantAId }),
    shopA2: await createShop(t.db, { merchant_id: merchantAId }),
    merchantB: merchantBId,
    shopB1: await createShop(t.db, { merchant_id: merchantBId }),
  };
  platform = await staffSession(t, { kind: 'platform', permissions: ALL });
  merchantA = await staffSession(t, { kind: 'merchant', merchantId: org.merchantA, permissions: ALL });
  shopA1 = await staffSession(t, { kind: 'shop', shopId: org.shopA1, permissions: ALL });
  shopA2 = await staffSession(t, { kind: 'shop', shopId: org.shopA2, permissions: ALL });
  merchantB = await staffSession(t, { kind: 'merchant', merchantId: org.merchantB, permissions: ALL });
});
afterAll(() => t?.close());

interface Finance {
  id: number;
  merchantId: number;
  shopId: number | null;
  ebankType: number;
  name: string;
  bank: string;
  bankAccount: string;
  isDeleted: boolean;
  createdBy: string | null;
  createdTime: string | null;
  updatedBy: string | null;
  updatedTime: string | null;
  merchantName: string | null;
  shopName: string | null;
}

const call = (path: string, body: unknown, who: StaffSession) => t.post(`${P}/${path}`, body, who.token);
async function ok(path: string, body: unknown, who: StaffSession) {
  const res = await call(path, body, who);
  expect(res.body.errcode, `${path}: ${res.body.errmsg}`).toBe(0);
  return res.body.data;
}
const add = (who: StaffSession, body: Record<string, unknown>): Promise<Finance> =>
  ok(
    'addMerchantFinance',
    { name: '景区公司', bank: '工商银行杭州分行', bankAccount: '6222000011112222', ...body },
    who,
  );
const del = (who: StaffSession, id: number) => ok('deleteMerchantFinance', { id }, who);

describe('rejection matrix', () => {
  const valid = () => ({ merchantId: org.merchantA, name: 'A', bank: 'B', bankAccount: '6222000011112222' });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/addMerchantFinance`,
    permission: 'merchantFinance:write',
    validBody: valid,
    badInputs: [
      { body: () => ({ ...valid(), name: undefined }), field: 'name', rule: /name is required/ },
      { body: () => ({ ...valid(), name: '   ' }), field: 'name', rule: /name is required/ },
      { body: () => ({ ...valid(), name: 'x'.repeat(129) }), field: 'name' },
      { body: () => ({ ...valid(), bank: undefined }), field: 'bank', rule: /bank is required/ },
      { body: () => ({ ...valid(), bankAccount: undefined }), field: 'bankAccount', rule: /bankAccount is required/ },
      { body: () => ({ ...valid(), bankAccount: '6222-0000-1111' }), field: 'bankAccount', rule: /6 to 32 digits/ },
      { body: () => ({ ...valid(), bankAccount: 'IBAN6222000011112222' }), field: 'bankAccount' },
      { body: () => ({ ...valid(), bankAccount: '12345' }), field: 'bankAccount' },
      { body: () => ({ ...valid(), bankAccount: '1'.repeat(33) }), field: 'bankAccount' },
      { body: () => ({ ...valid(), bankAccount: 6222000011112222 }), field: 'bankAccount', rule: /must be a string/ },
      { body: () => ({ ...valid(), ebankType: 3 }), field: 'ebankType', rule: /between 1 and 2/ },
      { body: () => ({ ...valid(), merchantId: 0 }), field: 'merchantId' },
      { body: () => ({ ...valid(), shopId: 'one' }), field: 'shopId' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/updateMerchantFinance`,
    permission: 'merchantFinance:write',
    validBody: () => ({ id: 1, bank: 'B' }),
    badInputs: [
      { body: () => ({ bank: 'B' }), field: 'id', rule: /id is required/ },
      { body: () => ({ id: 1, bankAccount: '62 22 ab' }), field: 'bankAccount' },
      { body: () => ({ id: 1, ebankType: 0 }), field: 'ebankType' },
      { body: () => ({ id: 1, bank: 'x'.repeat(129) }), field: 'bank' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/deleteMerchantFinance`,
    permission: 'merchantFinance:write',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({ id: 'x' }), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/getMerchantFinance`,
    permission: 'merchantFinance:read',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({}), field: 'id', rule: /id is required/ }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/queryMerchantFinanceList`,
    permission: 'merchantFinance:read',
    validBody: () => ({}),
    badInputs: [
      { body: () => ({ idList: 'all' }), field: 'idList' },
      { body: () => ({ ebankType: 9 }), field: 'ebankType' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/queryMerchantFinancePage`,
    permission: 'merchantFinance:read',
    validBody: () => ({}),
    badInputs: [
      { body: () => ({ pageSize: 1.5 }), field: 'pageSize' },
      { body: () => ({ keywords: 'x'.repeat(65) }), field: 'keywords' },
    ],
  });
});

describe('success', () => {
  it("adds, reads, updates and deletes a merchant's account; the number is stored as digits", async () => {
    const created = await add(merchantA, { name: ' 景区公司A ', bankAccount: '6222 0000 1111 2222 333' });
    expect(created).toEqual({
      id: expect.any(Number),
      merchantId: org.merchantA,
      shopId: null,
      ebankType: 1,
      name: '景区公司A',
      bank: '工商银行杭州分行',
      bankAccount: '6222000011112222333',
      isDeleted: false,
      createdBy: String(merchantA.userId),
      createdTime: expect.any(String),
      updatedBy: String(merchantA.userId),
      updatedTime: expect.any(String),
      merchantName: expect.any(String),
      shopName: null,
    });
    expect(await ok('getMerchantFinance', { id: created.id }, merchantA)).toEqual(created);
    expect(await ok('getMerchantFinance', { id: created.id }, platform)).toEqual(created);

    // Absent fields are kept; the owner sent back as read is accepted.
    await ok(
      'updateMerchantFinance',
      { id: created.id, merchantId: org.merchantA, bank: '建设银行', bankAccount: '6227 0000 3333 4444' },
      merchantA,
    );
    const after: Finance = await ok('getMerchantFinance', { id: created.id }, merchantA);
    expect(after).toEqual({
      ...created,
      bank: '建设银行',
      bankAccount: '6227000033334444',
      updatedTime: expect.any(String),
    });

    await del(merchantA, created.id);
    expect((await call('getMerchantFinance', { id: created.id }, merchantA)).body).toEqual({
      errcode: 404,
      errmsg: 'merchant finance record not found',
    });
    expect((await call('deleteMerchantFinance', { id: created.id }, merchantA)).body.errcode).toBe(404);
    expect((await call('updateMerchantFinance', { id: created.id, bank: 'x' }, merchantA)).body.errcode).toBe(404);
    const row = await t.db
      .selectFrom('merchant_finance')
      .select(['is_deleted', 'updated_by'])
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ is_deleted: true, updated_by: merchantA.userId });
  });

  it("keeps one living account per owner and ebankType (409, without the other account's number); a deleted one frees the place", async () => {
    const m = await createMerchant(t.db);
    const shop = await createShop(t.db, { merchant_id: m });
    const first = await add(platform, { merchantId: m, bankAccount: '1111222233334444' });
    const again = await call(
      'addMerchantFinance',
      { merchantId: m, name: 'x', bank: 'y', bankAccount: '5555666677778888' },
      platform,
    );
    expect(again.body).toEqual({
      errcode: 409,
      errmsg: 'the merchant already has a merchant-settlement account (ebankType 1): update that one instead',
    });
    // Another kind, and the merchant's shop, each hold their own.
    const sales = await add(platform, { merchantId: m, ebankType: 2, bankAccount: '9999000011112222' });
    const shopAccount = await add(platform, { shopId: shop, bankAccount: '3333444455556666' });
    expect(shopAccount).toMatchObject({ merchantId: m, shopId: shop, ebankType: 1, shopName: expect.any(String) });
    expect(
      (
        await call(
          'addMerchantFinance',
          { shopId: shop, merchantId: m, name: 'x', bank: 'y', bankAccount: '123456' },
          platform,
        )
      ).body.errmsg,
    ).toBe('the shop already has a merchant-settlement account (ebankType 1): update that one instead');
    // Changing the kind onto a taken one is refused too.
    const moved = await call('updateMerchantFinance', { id: sales.id, ebankType: 1 }, platform);
    expect(moved.body.errcode).toBe(409);
    expect(JSON.stringify(moved.body)).not.toContain('1111222233334444');

    await del(platform, first.id);
    const next = await add(platform, { merchantId: m, bankAccount: '5555666677778888' });
    expect(next.id).not.toBe(first.id);
    const living = await t.db
      .selectFrom('merchant_finance')
      .select('id')
      .where('merchant_id', '=', m)
      .where('is_deleted', '=', false)
      .orderBy('id')
      .execute();
    expect(living.map((r) => r.id)).toEqual([sales.id, shopAccount.id, next.id]);
  });

  it('lists and pages with filters, newest first', async () => {
    const m = await createMerchant(t.db, { name: `列表商户 ${Date.now()}` });
    const shop = await createShop(t.db, { merchant_id: m });
    const a = await add(platform, { merchantId: m, name: '结算户', bank: '招商银行' });
    const b = await add(platform, { merchantId: m, ebankType: 2, name: '销售户', bank: '农业银行' });
    const c = await add(platform, { shopId: shop, name: '门店户', bank: '招商银行' });
    const list = (body: Record<string, unknown>) =>
      ok('queryMerchantFinanceList', { merchantId: m, ...body }, platform) as Promise<Finance[]>;
    expect((await list({})).map((f) => f.id)).toEqual([c.id, b.id, a.id]);
    expect((await list({ ebankType: 2 })).map((f) => f.id)).toEqual([b.id]);
    expect((await list({ shopId: shop })).map((f) => f.id)).toEqual([c.id]);
    expect((await list({ bank: '招商' })).map((f) => f.id)).toEqual([c.id, a.id]);
    expect((await list({ keywords: '销售' })).map((f) => f.id)).toEqual([b.id]);
    expect((await list({ idList: [a.id, c.id] })).map((f) => f.id)).toEqual([c.id, a.id]);
    const page = await ok('queryMerchantFinancePage', { merchantId: m, pageNum: 2, pageSize: 2 }, platform);
    expect(page).toEqual({ total: 3, list: [a] });
  });

  it('lets platform staff add for a merchant or a shop, naming the owner; refuses unknown owners and a disabled merchant', async () => {
    const m = await createMerchant(t.db);
    const shop = await createShop(t.db, { merchant_id: m });
    expect(await add(platform, { shopId: shop, ebankType: 2 })).toMatchObject({ merchantId: m, shopId: shop });
    const body = { name: 'x', bank: 'y', bankAccount: '123456789' };
    expect((await call('addMerchantFinance', { ...body, merchantId: 99_999_999 }, platform)).body).toEqual({
      errcode: 404,
      errmsg: 'merchant (merchantId) not found',
    });
    expect((await call('addMerchantFinance', { ...body, shopId: 99_999_999 }, platform)).body).toEqual({
      errcode: 404,
      errmsg: 'shop (shopId) not found',
    });
    expect(
      (await call('addMerchantFinance', { ...body, merchantId: org.merchantB, shopId: shop }, platform)).body,
    ).toEqual({ errcode: 400, errmsg: 'shopId is invalid: the shop belongs to another merchant' });
    const disabled = await createMerchant(t.db, { status: 0 });
    expect((await call('addMerchantFinance', { ...body, merchantId: disabled }, platform)).body.errcode).toBe(
      1_022_000_001,
    );
  });
});

describe('scoping', () => {
  it("a merchant user works on its merchant's accounts (and its shops'), never another merchant's", async () => {
    const own = await add(merchantA, { ebankType: 2, bankAccount: '4000111122223333' });
    expect(own).toMatchObject({ merchantId: org.merchantA, shopId: null });
    const ofShop = await add(merchantA, { shopId: org.shopA2, ebankType: 2, bankAccount: '4000111122224444' });
    expect(ofShop).toMatchObject({ merchantId: org.merchantA, shopId: org.shopA2 });
    const theirs = await add(merchantB, { ebankType: 2, bankAccount: '4000999988887777' });

    const refused = { errcode: 403, errmsg: 'the record belongs to another merchant' };
    expect((await call('getMerchantFinance', { id: theirs.id }, merchantA)).body).toEqual(refused);
    expect((await call('updateMerchantFinance', { id: theirs.id, bank: 'mine now' }, merchantA)).body).toEqual(refused);
    expect((await call('deleteMerchantFinance', { id: theirs.id }, merchantA)).body).toEqual(refused);
    expect(
      (
        await call(
          'addMerchantFinance',
          { merchantId: org.merchantB, name: 'x', bank: 'y', bankAccount: '123456' },
          merchantA,
        )
      ).body,
    ).toEqual(refused);
    expect(
      (await call('addMerchantFinance', { shopId: org.shopB1, name: 'x', bank: 'y', bankAccount: '123456' }, merchantA))
        .body,
    ).toEqual(refused);

    // Another merchant's number appears in no answer: lists filter silently, filters cannot widen them.
    for (const body of [{}, { merchantId: org.merchantA }, { idList: [own.id, ofShop.id] }, { keywords: '景区' }]) {
      const list = await call('queryMerchantFinanceList', body, merchantB);
      const page = await call('queryMerchantFinancePage', body, merchantB);
      for (const res of [list, page]) {
        expect(res.body.errcode).toBe(0);
        expect(JSON.stringify(res.body)).not.toContain('40001111222');
      }
    }
    const mine = (await ok('queryMerchantFinanceList', {}, merchantA)) as Finance[];
    expect(mine.every((f) => f.merchantId === org.merchantA)).toBe(true);
    expect(mine.map((f) => f.id)).toEqual(expect.arrayContaining([own.id, ofShop.id]));
  });

  it("a shop user works on its shop's accounts only: not its merchant's, not another shop's", async () => {
    const ofShop = await add(shopA1, { ebankType: 2, bankAccount: '5000111122223333' });
    expect(ofShop).toMatchObject({ merchantId: org.merchantA, shopId: org.shopA1 });
    const ofMerchant =
      ((await ok('queryMerchantFinanceList', { ebankType: 2, shopId: null }, merchantA)) as Finance[]).find(
        (f) => f.shopId === null,
      ) ?? (await add(merchantA, { ebankType: 2 }));
    const ofOtherShop =
      ((await ok('queryMerchantFinanceList', { shopId: org.shopA2, ebankType: 2 }, merchantA)) as Finance[])[0] ??
      (await add(merchantA, { shopId: org.shopA2, ebankType: 2 }));

    const otherShop = { errcode: 403, errmsg: 'the record belongs to another shop' };
    expect((await call('getMerchantFinance', { id: ofMerchant.id }, shopA1)).body).toEqual(otherShop);
    expect((await call('getMerchantFinance', { id: ofOtherShop.id }, shopA1)).body).toEqual(otherShop);
    expect((await call('updateMerchantFinance', { id: ofOtherShop.id, bank: 'x' }, shopA1)).body).toEqual(otherShop);
    expect((await call('deleteMerchantFinance', { id: ofMerchant.id }, shopA1)).body).toEqual(otherShop);
    expect(
      (await call('addMerchantFinance', { shopId: org.shopA2, name: 'x', bank: 'y', bankAccount: '123456' }, shopA1))
        .body,
    ).toEqual(otherShop);
    expect(
      (
        await call(
          'addMerchantFinance',
          { merchantId: org.merchantB, name: 'x', bank: 'y', bankAccount: '123456' },
          shopA1,
        )
      ).body,
    ).toEqual({ errcode: 403, errmsg: 'the record belongs to another merchant' });

    const seen = (await ok('queryMerchantFinanceList', {}, shopA1)) as Finance[];
    expect(seen.map((f) => f.id)).toEqual([ofShop.id]);
    expect((await ok('queryMerchantFinancePage', {}, shopA2)).list.every((f: Finance) => f.shopId === org.shopA2)).toBe(
      true,
    );
    // Its own: update and delete.
    await ok('updateMerchantFinance', { id: ofShop.id, shopId: org.shopA1, name: '门店收款户' }, shopA1);
    expect((await call('updateMerchantFinance', { id: ofShop.id, shopId: org.shopA2 }, merchantA)).body).toEqual({
      errcode: 400,
      errmsg: 'shopId is invalid: a finance record stays with its shop; delete it and add one for the other',
    });
    await del(shopA1, ofShop.id);
  });
});

describe('operation log', () => {
  it('records add, update and delete with the business id, and a refused write as a failure', async () => {
    const f = await add(merchantB, { shopId: org.shopB1 });
    await ok('updateMerchantFinance', { id: f.id, bank: '中国银行' }, merchantB);
    await call('addMerchantFinance', { shopId: org.shopB1, name: 'x', bank: 'y', bankAccount: '123456' }, merchantB);
    await del(merchantB, f.id);
    const rows = await t.db
      .selectFrom('operate_log')
      .select(['module', 'action', 'biz_id', 'success', 'errcode'])
      .where('account_id', '=', merchantB.userId)
      .where('module', '=', '商户财务信息')
      .orderBy('id')
      .execute();
    expect(rows.slice(-4).map((r) => [r.action, r.biz_id, r.success, Number(r.errcode)])).toEqual([
      ['新增商户财务信息', String(f.id), true, 0],
      ['修改商户财务信息', String(f.id), true, 0],
      ['新增商户财务信息', null, false, 409],
      ['删除商户财务信息', String(f.id), true, 0],
    ]);
  });
});
