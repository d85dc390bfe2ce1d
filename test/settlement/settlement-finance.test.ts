import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { buildWorld, ISSUE, PERIOD, PROFIT, type World } from './world.js';

/**
 * Spec B 4.3 rule 3 end to end: the finance account a merchant keeps through
 * /manage-api/merchantFinance is the merchantFinance getInvoiceSettlementCard answers.
 */
const ALL = [
  'settlement:read',
  'settlement:confirm',
  'settlement:write',
  'estimation:read',
  'estimation:write',
  'merchantFinance:read',
  'merchantFinance:write',
];

let t: TestApp;
let w: World;
let platform: StaffSession;
let merchantA: StaffSession;
let merchantB: StaffSession;
let shopA1: StaffSession;

beforeAll(async () => {
  t = await createTestApp();
  w = await buildWorld(t);
  platform = await staffSession(t, { kind: 'platform', permissions: ALL });
  merchantA = await staffSession(t, { kind: 'merchant', merchantId: w.merchantA, permissions: ALL });
  merchantB = await staffSession(t, { kind: 'merchant', merchantId: w.merchantB, permissions: ALL });
  shopA1 = await staffSession(t, { kind: 'shop', shopId: w.shopA1, permissions: ALL });
});
afterAll(() => t?.close());

async function ok(path: string, body: unknown, who: StaffSession) {
  const res = await t.post(`/manage-api/${path}`, body, who.token);
  expect(res.body.errcode, `${path}: ${res.body.errmsg}`).toBe(0);
  return res.body.data;
}
const invoiceCard = (id: number, who: StaffSession) => ok('settlement/getInvoiceSettlementCard', { id }, who);

/** Merchant A's order of a fresh estimation, moved to pending invoice (4). */
async function pendingInvoice(): Promise<number> {
  const calc = await ok(
    'estimation/calcEstimationCard',
    { cardModelId: w.model, profit: PROFIT, issueNum: ISSUE, estimationPeriod: PERIOD },
    platform,
  );
  await ok('estimation/submitEstimationCard', { id: calc.id }, platform);
  const { id } = await t.db
    .selectFrom('settlement')
    .select('id')
    .where('estimation_id', '=', calc.id)
    .where('settlement_merchant_id', '=', w.merchantA)
    .executeTakeFirstOrThrow();
  await ok('settlement/confirmSettlementCard', { id }, merchantA);
  await ok('settlement/calcSettlementCard', { id }, platform);
  await ok('settlement/reviewSettlementCard', { id, pass: true }, platform);
  return id;
}

describe('getInvoiceSettlementCard reads the account kept through merchantFinance', () => {
  it("shows the merchant's own merchant-settlement account, follows its updates, and none once it is deleted", async () => {
    const id = await pendingInvoice();
    expect((await invoiceCard(id, merchantA)).merchantFinance).toBeNull();

    const created = await ok(
      'merchantFinance/addMerchantFinance',
      { name: '景区公司A', bank: '工商银行', bankAccount: '6222 0200 1111 2222' },
      merchantA,
    );
    // Accounts that are not the merchant's own merchant-settlement one are never shown in its place.
    await ok(
      'merchantFinance/addMerchantFinance',
      { name: '门店A1', bank: '农业银行', bankAccount: '6228480011112222' },
      shopA1,
    );
    await ok(
      'merchantFinance/addMerchantFinance',
      { ebankType: 2, name: '销售户', bank: '招商银行', bankAccount: '6225880011112222' },
      merchantA,
    );
    await ok(
      'merchantFinance/addMerchantFinance',
      { name: '景区公司B', bank: '建设银行', bankAccount: '6227000033334444' },
      merchantB,
    );

    const spec = {
      id: created.id,
      shopId: null,
      merchantId: w.merchantA,
      ebankType: 1,
      name: '景区公司A',
      bank: '工商银行',
      bankAccount: '6222020011112222',
      isDeleted: false,
      createdBy: String(merchantA.userId),
      createdTime: created.createdTime,
      updatedBy: String(merchantA.userId),
      updatedTime: created.updatedTime,
    };
    const card = await invoiceCard(id, merchantA);
    expect(card).toMatchObject({
      id,
      settlementStatus: 4,
      settlementMerchantName: expect.stringContaining('景区公司A'),
    });
    expect(card.merchantFinance).toEqual(spec);
    // The platform and a shop user of the merchant who sees the order read the same account.
    expect((await invoiceCard(id, platform)).merchantFinance).toEqual(spec);
    expect((await invoiceCard(id, shopA1)).merchantFinance).toEqual(spec);
    // Another merchant reads neither the order nor the account.
    const foreign = await t.post('/manage-api/settlement/getInvoiceSettlementCard', { id }, merchantB.token);
    expect(foreign.body).toEqual({ errcode: 403, errmsg: 'the record belongs to another merchant' });

    await ok(
      'merchantFinance/updateMerchantFinance',
      { id: created.id, bank: '工商银行西湖支行', bankAccount: '6222020099998888' },
      merchantA,
    );
    expect((await invoiceCard(id, merchantA)).merchantFinance).toMatchObject({
      id: created.id,
      bank: '工商银行西湖支行',
      bankAccount: '6222020099998888',
    });

    // Invoiced (5): the settlement merchant's account, whoever asks.
    await ok(
      'settlement/uploadSettlementInvoice',
      { id, settlementFiles: 'https://files.example/invoice.pdf' },
      merchantA,
    );
    expect((await invoiceCard(id, platform)).merchantFinance).toMatchObject({
      id: created.id,
      merchantId: w.merchantA,
    });

    await ok('merchantFinance/deleteMerchantFinance', { id: created.id }, merchantA);
    expect((await invoiceCard(id, platform)).merchantFinance).toBeNull();
    const replacement = await ok(
      'merchantFinance/addMerchantFinance',
      { merchantId: w.merchantA, name: '景区公司A', bank: '中国银行', bankAccount: '6013820011112222' },
      platform,
    );
    expect((await invoiceCard(id, merchantA)).merchantFinance).toMatchObject({
      id: replacement.id,
      bank: '中国银行',
      createdBy: String(platform.userId),
    });
  });
});
