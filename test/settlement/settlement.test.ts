import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCardModel, createCardModelRule, createShop, createSku, createSpu, uniq } from '../helpers/factories.js';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { addCheck, buildWorld, EXPECTED, ISSUE, PERIOD, PROFIT, TOTAL_A, type World } from './world.js';

/** Settlement orders (spec B 4.3, docs/domain.md §3): the status machine, refusals, races, scoping, afresh, export. */
const P = '/manage-api/settlement';
const ALL = [
  'settlement:read',
  'settlement:confirm',
  'settlement:write',
  'settlement:delete',
  'estimation:read',
  'estimation:write',
];

let t: TestApp;
let w: World;
let platform: StaffSession;
let merchantA: StaffSession;
let merchantB: StaffSession;
let shopA1: StaffSession;
let shopA2: StaffSession;

beforeAll(async () => {
  t = await createTestApp();
  w = await buildWorld(t);
  platform = await staffSession(t, { kind: 'platform', permissions: ALL });
  merchantA = await staffSession(t, { kind: 'merchant', merchantId: w.merchantA, permissions: ALL });
  merchantB = await staffSession(t, { kind: 'merchant', merchantId: w.merchantB, permissions: ALL });
  shopA1 = await staffSession(t, { kind: 'shop', shopId: w.shopA1, permissions: ALL });
  shopA2 = await staffSession(t, {
    kind: 'shop',
    shopId: await createShop(t.db, { merchant_id: w.merchantA }),
    permissions: ALL,
  });
  const finance = await staffSession(t, { kind: 'platform', permissions: ['merchantFinance:write'] });
  for (const account of [
    { merchantId: w.merchantA, name: '景区公司A', bank: '工商银行', bankAccount: '6222000011112222' },
    { merchantId: w.merchantB, name: '景区公司B', bank: '建设银行', bankAccount: '6227000033334444' },
  ]) {
    const added = await t.post('/manage-api/merchantFinance/addMerchantFinance', account, finance.token);
    expect(added.body.errcode, added.body.errmsg).toBe(0);
  }
});
afterAll(() => t?.close());

const call = (path: string, body: unknown, who: StaffSession) => t.post(`${P}/${path}`, body, who.token);
async function ok(path: string, body: unknown, who = platform) {
  const res = await call(path, body, who);
  expect(res.body.errcode, `${path}: ${res.body.errmsg}`).toBe(0);
  return res.body.data;
}

/** A fresh estimation submitted: the orders of merchant A and B (status 1). */
async function orders(period = PERIOD): Promise<{ a: number; b: number }> {
  const calc = await t.post(
    '/manage-api/estimation/calcEstimationCard',
    { cardModelId: w.model, profit: PROFIT, issueNum: ISSUE, estimationPeriod: period },
    platform.token,
  );
  const sub = await t.post('/manage-api/estimation/submitEstimationCard', { id: calc.body.data.id }, platform.token);
  expect(sub.body.errcode, sub.body.errmsg).toBe(0);
  return ordersOf(calc.body.data.id);
}
/** The orders of merchants A and B that submitting the estimation made, as the page lists them. */
async function ordersOf(estimationId: number): Promise<{ a: number; b: number }> {
  const rows = (await ok('querySettlementCardPage', { estimationId, pageSize: 200 })).list as Array<{
    id: number;
    settlementMerchantId: number;
  }>;
  return {
    a: rows.find((r) => r.settlementMerchantId === w.merchantA)!.id,
    b: rows.find((r) => r.settlementMerchantId === w.merchantB)!.id,
  };
}
const status = async (id: number) => (await ok('getSettlementCard', { id })).settlementStatus as number;
type Detail = {
  id: number;
  resourceId: number;
  settlementAmount: number;
  decreaseAmount: number;
  increaseAmount: number;
  settlementAmountActual: number;
};
/** The order's detail of the lowest resource id. */
const detailId = async (id: number) =>
  ((await ok('getSettlementCard', { id })).details as Detail[]).reduce((x, y) => (y.resourceId < x.resourceId ? y : x))
    .id;

/** Every move, as the one who may make it, with a valid body. */
const MOVES = {
  confirm: (id: number) => call('confirmSettlementCard', { id }, merchantA),
  calc: (id: number) => call('calcSettlementCard', { id }, platform),
  pass: (id: number) => call('reviewSettlementCard', { id, pass: true }, platform),
  reject: (id: number) => call('reviewSettlementCard', { id, pass: false, remark: 'wrong counts' }, platform),
  invoice: (id: number) =>
    call('uploadSettlementInvoice', { id, settlementFiles: 'https://files.example/invoice.pdf' }, merchantA),
  pay: (id: number) => call('paySettlementCard', { id, amount: TOTAL_A, voucher: 'TX-1' }, platform),
  void: (id: number) => call('voidSettlementCard', { id, reason: 'duplicate' }, platform),
} as const;
/** The statuses each move accepts. */
const ACCEPTS: Record<keyof typeof MOVES, number[]> = {
  confirm: [1],
  calc: [2],
  pass: [3],
  reject: [3],
  invoice: [4],
  pay: [5],
  void: [1, 2, 3, 4, 5],
};

/** Order A driven to `target` along the main path. */
async function orderAt(target: number): Promise<number> {
  const { a } = await orders();
  const path: Array<keyof typeof MOVES> = ['confirm', 'calc', 'pass', 'invoice', 'pay'];
  for (let s = 1; s < target && target !== 9; s++) expect((await MOVES[path[s - 1]](a)).body.errcode).toBe(0);
  if (target === 9) expect((await MOVES.void(a)).body.errcode).toBe(0);
  expect(await status(a)).toBe(target);
  return a;
}

describe('rejection matrix', () => {
  const ops: Array<[string, string, () => unknown, Array<{ body: () => unknown; field: string }>]> = [
    ['getSettlementCard', 'settlement:read', () => ({ id: 1 }), [{ body: () => ({}), field: 'id' }]],
    ['getInvoiceSettlementCard', 'settlement:read', () => ({ id: 1 }), [{ body: () => ({ id: -3 }), field: 'id' }]],
    [
      'querySettlementCardPage',
      'settlement:read',
      () => ({}),
      [
        { body: () => ({ settlementStatus: 10 }), field: 'settlementStatus' },
        { body: () => ({ settlementPeriod: ['x', 'y'] }), field: 'settlementPeriod' },
      ],
    ],
    [
      'querySettlementCardCheckDetailPage',
      'settlement:read',
      () => ({ settlementDetailId: 1 }),
      [{ body: () => ({}), field: 'settlementDetailId' }],
    ],
    [
      'exportSettlementCardCheckDetailPage',
      'settlement:read',
      () => ({ settlementDetailId: 1 }),
      [{ body: () => ({ settlementDetailId: 'a' }), field: 'settlementDetailId' }],
    ],
    [
      'confirmSettlementCard',
      'settlement:confirm',
      () => ({ id: 1 }),
      [{ body: () => ({ id: 1, remark: 'x'.repeat(513) }), field: 'remark' }],
    ],
    [
      'calcSettlementCard',
      'settlement:write',
      () => ({ id: 1 }),
      [{ body: () => ({ id: 1, details: [{ id: 1, increaseAmount: -5 }] }), field: 'increaseAmount' }],
    ],
    [
      'reviewSettlementCard',
      'settlement:write',
      () => ({ id: 1, pass: true }),
      [{ body: () => ({ id: 1 }), field: 'pass' }],
    ],
    [
      'uploadSettlementInvoice',
      'settlement:confirm',
      () => ({ id: 1, settlementFiles: 'f' }),
      [{ body: () => ({ id: 1, settlementFiles: '' }), field: 'settlementFiles' }],
    ],
    [
      'paySettlementCard',
      'settlement:write',
      () => ({ id: 1, amount: 1 }),
      [
        { body: () => ({ id: 1 }), field: 'amount' },
        { body: () => ({ id: 1, amount: 1.5 }), field: 'amount' },
      ],
    ],
    [
      'voidSettlementCard',
      'settlement:write',
      () => ({ id: 1, reason: 'r' }),
      [{ body: () => ({ id: 1 }), field: 'reason' }],
    ],
    [
      'afreshSettlementCard',
      'settlement:write',
      () => ({ settlementId: 1, settlementDetailId: 1 }),
      [{ body: () => ({ settlementId: 1 }), field: 'settlementDetailId' }],
    ],
    ['deleteSettlementCard', 'settlement:delete', () => ({ id: 1 }), [{ body: () => ({ id: 'x' }), field: 'id' }]],
  ];
  for (const [path, permission, validBody, badInputs] of ops) {
    itRefusesWhatStaffOperationsRefuse(() => t, { path: `${P}/${path}`, permission, validBody, badInputs });
  }
});

describe('the status machine', () => {
  it('runs 1 → 6 with the merchant confirming and invoicing, the platform calculating, reviewing and paying; logs every move', async () => {
    const id = await orderAt(1);
    const got = await ok('getSettlementCard', { id }, merchantA);
    expect(got).toMatchObject({
      id,
      settlementStatus: 1,
      totalAmount: TOTAL_A,
      profit: PROFIT,
      issueNum: ISSUE,
      checkNum: 8,
      settlementMerchantName: expect.stringContaining('景区公司A'),
      merchantFinance: null,
    });
    expect(got.details.map((d: { settlementAmountActual: number }) => d.settlementAmountActual)).toEqual([
      EXPECTED.r1.settlementAmount,
      EXPECTED.r2.settlementAmount,
      EXPECTED.r3.settlementAmount,
    ]);
    expect(got.statisticData).toEqual({
      sceneryNum: 3,
      paidAmount: 0,
      unpaidAmount: TOTAL_A,
      amountBySettlementWay: { 1: 30850, 2: 123456, 3: 2916 },
    });

    expect((await MOVES.confirm(id)).body).toEqual({ errcode: 0, errmsg: 'success' });
    // The platform adjusts R2 while calculating: × 0.5 + 1.00 − 0.50 → 61728 + 100 − 50.
    const r2 = got.details[1].id;
    await ok('calcSettlementCard', {
      id,
      details: [{ id: r2, estimationFactor: 0.5, increaseAmount: 100, decreaseAmount: 50 }],
    });
    const adjusted = TOTAL_A - 123456 + 61778;
    expect((await ok('getSettlementCard', { id })).totalAmount).toBe(adjusted);
    expect((await MOVES.pass(id)).body.errcode).toBe(0);

    // Pending invoice: the session user's merchant's finance account.
    const inv = await ok('getInvoiceSettlementCard', { id }, merchantA);
    expect(inv.merchantFinance).toMatchObject({
      merchantId: w.merchantA,
      bank: '工商银行',
      bankAccount: '6222000011112222',
      ebankType: 1,
    });
    expect((await MOVES.invoice(id)).body.errcode).toBe(0);
    expect((await ok('getInvoiceSettlementCard', { id })).merchantFinance).toMatchObject({ merchantId: w.merchantA });

    const wrongAmount = await call('paySettlementCard', { id, amount: adjusted - 1 }, platform);
    expect(wrongAmount.body).toEqual({
      errcode: 400,
      errmsg: `amount is invalid: must equal the amount due, ${adjusted} cents`,
    });
    expect(await status(id)).toBe(5);
    await ok('paySettlementCard', { id, amount: adjusted, voucher: 'TX-9' });
    const done = await ok('getSettlementCard', { id });
    expect(done).toMatchObject({
      settlementStatus: 6,
      paidAmount: adjusted,
      settlementFiles: 'https://files.example/invoice.pdf',
    });
    // only the database shows the payment rows and who paid
    const pay = await t.db
      .selectFrom('settlement_payment')
      .select(['amount', 'voucher', 'paid_by'])
      .where('settlement_id', '=', id)
      .execute();
    expect(pay).toEqual([{ amount: adjusted, voucher: 'TX-9', paid_by: platform.userId }]);

    // only the database shows the status log and the operation log
    const log = await t.db
      .selectFrom('settlement_log')
      .select(['action', 'from_status', 'to_status'])
      .where('settlement_id', '=', id)
      .orderBy('id')
      .execute();
    expect(log.map((l) => [l.action, l.from_status, l.to_status])).toEqual([
      ['create', null, 1],
      ['confirm', 1, 2],
      ['calc', 2, 3],
      ['review-pass', 3, 4],
      ['invoice', 4, 5],
      ['pay', 5, 6],
    ]);
    const oplog = await t.db
      .selectFrom('operate_log')
      .select(['action', 'success'])
      .where('biz_id', '=', String(id))
      .where('module', '=', '结算管理')
      .orderBy('id')
      .execute();
    expect(oplog.map((o) => [o.action, o.success])).toEqual([
      ['确认结算单', true],
      ['计算结算单', true],
      ['审核结算单', true],
      ['上传结算发票', true],
      ['支付结算单', false],
      ['支付结算单', true],
    ]);
  });

  it('sends a rejected order back to 1 and lets it go round again; voids an order', async () => {
    const id = await orderAt(3);
    expect((await MOVES.reject(id)).body.errcode).toBe(0);
    expect(await status(id)).toBe(1);
    expect((await ok('getSettlementCard', { id })).remark).toBe('wrong counts');
    expect((await MOVES.confirm(id)).body.errcode).toBe(0);
    expect((await MOVES.void(id)).body.errcode).toBe(0);
    expect(await status(id)).toBe(9);
    // only the database shows the status log
    const log = await t.db
      .selectFrom('settlement_log')
      .select(['action', 'to_status', 'remark'])
      .where('settlement_id', '=', id)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    expect(log).toEqual({ action: 'void', to_status: 9, remark: 'duplicate' });
  });

  it('refuses every move from every status it does not accept with 409 naming the current status', async () => {
    const names: Record<number, string> = {
      1: 'pending scenic-spot check',
      2: 'pending platform calculation',
      3: 'pending platform review',
      4: 'pending invoice',
      5: 'pending platform payment',
      6: 'completed',
      9: 'voided',
    };
    for (const s of [1, 2, 3, 4, 5, 6, 9]) {
      const id = await orderAt(s);
      for (const [move, accepts] of Object.entries(ACCEPTS)) {
        if (accepts.includes(s)) continue;
        const res = await MOVES[move as keyof typeof MOVES](id);
        expect(res.body.errcode, `${move} from ${s}`).toBe(409);
        expect(res.body.errmsg).toContain(`status ${s} (${names[s]})`);
      }
      const afresh = await call(
        'afreshSettlementCard',
        { settlementId: id, settlementDetailId: await detailId(id) },
        platform,
      );
      expect(afresh.body.errcode, `afresh from ${s}`).toBe(s <= 3 ? 0 : 409);
      expect(await status(id)).toBe(s);
    }
  });

  it('lets exactly one of two racing moves win; the loser is told the status it found', async () => {
    const id = await orderAt(2);
    const [x, y] = await Promise.all([MOVES.calc(id), MOVES.calc(id)]);
    expect([x.body.errcode, y.body.errcode].sort()).toEqual([0, 409]);
    expect([x, y].find((r) => r.body.errcode === 409)!.body.errmsg).toContain('status 3');
    const other = await orderAt(3);
    const [p, r] = await Promise.all([MOVES.pass(other), MOVES.reject(other)]);
    expect([p.body.errcode, r.body.errcode].sort()).toEqual([0, 409]);
    expect(await status(other)).toBe(p.body.errcode === 0 ? 4 : 1);
    // only the database shows the status log
    const moves = await t.db
      .selectFrom('settlement_log')
      .select('action')
      .where('settlement_id', 'in', [id, other])
      .where('action', '<>', 'create')
      .execute();
    // id: confirm + the one calc; other: confirm, calc + the one review
    expect(moves).toHaveLength(2 + 3);
  });
});

describe('scoping', () => {
  it('lets merchant users confirm and invoice only their own orders, and the platform do the rest', async () => {
    const { a, b } = await orders();
    const refusedB = { errcode: 403, errmsg: 'the record belongs to another merchant' };
    expect((await call('confirmSettlementCard', { id: a }, merchantB)).body).toEqual(refusedB);
    expect((await call('getSettlementCard', { id: a }, merchantB)).body).toEqual(refusedB);
    expect((await call('confirmSettlementCard', { id: a }, platform)).body).toEqual({
      errcode: 403,
      errmsg: 'only users of the settlement merchant can confirm a settlement order',
    });
    expect((await call('confirmSettlementCard', { id: a }, shopA1)).body.errcode).toBe(403);
    expect((await call('confirmSettlementCard', { id: b }, merchantB)).body.errcode).toBe(0);
    expect((await call('calcSettlementCard', { id: b }, merchantB)).body).toEqual({
      errcode: 403,
      errmsg: 'only platform users can calc a settlement order',
    });
    expect((await call('voidSettlementCard', { id: a, reason: 'x' }, merchantA)).body.errcode).toBe(403);
    expect((await call('deleteSettlementCard', { id: a }, merchantA)).body.errcode).toBe(403);
    expect(await status(a)).toBe(1);
    // A shop user sees the orders with a detail of its shop; a sibling shop does not.
    expect((await call('getSettlementCard', { id: a }, shopA1)).body.errcode).toBe(0);
    expect((await call('getSettlementCard', { id: a }, shopA2)).body).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another shop',
    });
    expect((await call('getSettlementCard', { id: 999_999_999 }, platform)).body).toEqual({
      errcode: 404,
      errmsg: 'settlement order not found',
    });
  });

  it('pages only the orders the caller may see, with filters', async () => {
    const { a, b } = await orders();
    const ids = async (who: StaffSession, f: object = {}) =>
      (
        (await ok('querySettlementCardPage', { pageSize: 200, cardModelId: w.model, ...f }, who)).list as Array<{
          id: number;
        }>
      ).map((o) => o.id);
    expect(await ids(platform)).toEqual(expect.arrayContaining([a, b]));
    expect(await ids(merchantA)).toContain(a);
    expect(await ids(merchantA)).not.toContain(b);
    expect(await ids(merchantB)).not.toContain(a);
    expect(await ids(shopA2)).toEqual([]);
    expect(await ids(platform, { settlementMerchantId: w.merchantB, settlementStatus: 1 })).toContain(b);
    expect(await ids(platform, { settlementPeriod: ['2026-04-01', '2026-04-30'] })).toEqual([]);
    expect(await ids(platform, { settlementPeriod: ['2026-03-20', '2026-04-30'] })).toContain(a);
    const page = await ok('querySettlementCardPage', {
      settlementNo: (await ok('getSettlementCard', { id: a })).settlementNo,
    });
    expect(page).toEqual({
      list: [expect.objectContaining({ id: a, totalAmount: TOTAL_A, settlementMerchantId: w.merchantA })],
      total: 1,
    });
  });
});

describe('afresh, delete, check details, export', () => {
  it('recomputes from new check-ins: only the affected details change; snapshots replaced; the session user recorded', async () => {
    const { b } = await orders();
    const before = (await ok('getSettlementCard', { id: b })).details as Array<{
      id: number;
      resourceId: number;
      checkNum: number;
      settlementAmountActual: number;
    }>;
    expect(before.map((d) => d.settlementAmountActual)).toEqual([
      EXPECTED.r4.settlementAmount,
      EXPECTED.r5.settlementAmount,
      EXPECTED.r6.settlementAmount,
    ]);
    await addCheck(t, w, 'r4', '2026-03-13 10:00:00', 2); // R4 now 3 : R5 3 → 116.65 / 116.66 (tie: lower id takes the cent)
    await ok('afreshSettlementCard', { settlementId: b, settlementDetailId: before[0].id });
    const after = await ok('getSettlementCard', { id: b });
    expect(
      after.details.map((d: { checkNum: number; settlementAmountActual: number }) => [
        d.checkNum,
        d.settlementAmountActual,
      ]),
    ).toEqual([
      [3, 11666],
      [3, 11665],
      [2, 1111],
    ]);
    expect(after.totalAmount).toBe(11666 + 11665 + 1111);
    expect(after.details[2]).toEqual(before[2] as unknown as (typeof after.details)[2]);
    expect(
      (await ok('querySettlementCardCheckDetailPage', { settlementDetailId: before[0].id, pageSize: 200 })).total,
    ).toBe(2);
    // only the database shows who recalculated the order
    const row = await t.db
      .selectFrom('settlement')
      .select(['afresh_by', 'afresh_time'])
      .where('id', '=', b)
      .executeTakeFirstOrThrow();
    expect(row.afresh_by).toBe(platform.userId);
    const { a } = await orders();
    const foreign = await call(
      'afreshSettlementCard',
      { settlementId: b, settlementDetailId: await detailId(a) },
      platform,
    );
    expect(foreign.body.errcode).toBe(400);
  });

  it('deletes an order with its details, check details and payments, keeping a log row', async () => {
    const id = await orderAt(6);
    await ok('deleteSettlementCard', { id });
    expect((await call('getSettlementCard', { id }, platform)).body).toEqual({
      errcode: 404,
      errmsg: 'settlement order not found',
    });
    // only the database shows that the gone order's rows went with it, and the status log
    for (const table of ['settlement_detail', 'settlement_check_detail', 'settlement_payment'] as const) {
      expect(
        await t.db.selectFrom(table).select('settlement_id').where('settlement_id', '=', id).execute(),
        table,
      ).toEqual([]);
    }
    const log = await t.db
      .selectFrom('settlement_log')
      .select(['action', 'from_status'])
      .where('settlement_id', '=', id)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(log).toEqual({ action: 'delete', from_status: 6 });
    expect((await call('deleteSettlementCard', { id }, platform)).body.errcode).toBe(404);
  });

  it('pages and exports (POST and GET) the check details, read back', async () => {
    const { a } = await orders();
    const r1 = await detailId(a);
    const page = await ok('querySettlementCardCheckDetailPage', { settlementDetailId: r1, pageSize: 2 }, merchantA);
    expect(page.total).toBe(4);
    expect(page.list[0]).toEqual({
      cardModelName: w.modelName,
      sceneryName: w.r.r1.name,
      touristName: '李四',
      touristPhone: '13900002222',
      cardNumber: w.cardNumber,
      checkTime: '2026-03-11 09:00:00',
      checkerId: w.checker,
      checkerName: '检票员小王',
    });
    expect((await call('querySettlementCardCheckDetailPage', { settlementDetailId: r1 }, merchantB)).body.errcode).toBe(
      403,
    );
    expect(
      (await call('querySettlementCardCheckDetailPage', { settlementDetailId: 999_999_999 }, platform)).body.errcode,
    ).toBe(404);

    const res = await call('exportSettlementCardCheckDetailPage', { settlementDetailId: r1 }, merchantA);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(res.raw.rawPayload as unknown as ArrayBuffer);
    const ws = wb.worksheets[0];
    expect((ws.getRow(1).values as unknown[]).slice(1)).toEqual([
      '卡型',
      '景区',
      '游客姓名',
      '游客电话',
      '卡号',
      '核销时间',
      '核销员ID',
      '核销员',
      '核销次数',
    ]);
    expect((ws.getRow(2).values as unknown[]).slice(1)).toEqual([
      w.modelName,
      w.r.r1.name,
      '李四',
      '13900002222',
      w.cardNumber,
      '2026-03-11 09:00:00',
      w.checker,
      '检票员小王',
      2,
    ]);
    expect(ws.rowCount).toBe(6);
    expect(ws.getRow(6).getCell(1).value).toBe('合计');
    expect(ws.getRow(6).getCell(9).value).toBe(7);

    const got = await t.call(
      'GET',
      `${P}/exportSettlementCardCheckDetailPage?settlementDetailId=${r1}&keywords=${encodeURIComponent('李四')}`,
      { token: platform.token },
    );
    const wb2 = new ExcelJS.Workbook();
    await wb2.xlsx.load(got.raw.rawPayload as unknown as ArrayBuffer);
    expect(wb2.worksheets[0].rowCount).toBe(3);
    expect(
      (await call('exportSettlementCardCheckDetailPage', { settlementDetailId: r1 }, merchantB)).body.errcode,
    ).toBe(403);
  });
});

describe('what a recalculation or an adjustment may not leave behind', () => {
  /** A detail's amounts as getSettlementCard shows them. */
  const detailRow = async (order: number, id: number) => {
    const d = ((await ok('getSettlementCard', { id: order })).details as Detail[]).find((x) => x.id === id)!;
    return {
      settlementAmount: d.settlementAmount,
      decreaseAmount: d.decreaseAmount,
      increaseAmount: d.increaseAmount,
      settlementAmountActual: d.settlementAmountActual,
    };
  };

  it('refuses a recalculation that would leave a kept decrease above the new amount (409), changing nothing', async () => {
    const late = await addCheck(t, w, 'r1', '2026-03-19 10:00:00'); // 60.00 × 0.85 → r1 settles 308.50 + 51.00
    try {
      const { a } = await orders();
      const r1 = await detailId(a);
      expect((await MOVES.confirm(a)).body.errcode).toBe(0);
      await ok('calcSettlementCard', { id: a, details: [{ id: r1, decreaseAmount: 35950 }] });
      const before = await detailRow(a, r1);
      expect(before).toEqual({
        settlementAmount: 35950,
        decreaseAmount: 35950,
        increaseAmount: 0,
        settlementAmountActual: 0,
      });

      // Written directly, here and below: no operation withdraws a check-in of a past period.
      await t.db.updateTable('card_check').set({ is_deleted: true }).where('id', '=', late).execute();
      const res = await call('afreshSettlementCard', { settlementId: a, settlementDetailId: r1 }, platform);
      expect(res.body).toEqual({
        errcode: 409,
        errmsg: `detail ${r1} would settle for less than 0 after the recalculation (30850 cents recalculated, a decrease of 35950 cents kept): lower its decrease with calcSettlementCard first`,
      });
      expect(await detailRow(a, r1)).toEqual(before);
      expect((await ok('getSettlementCard', { id: a })).totalAmount).toBe(TOTAL_A - 30850);
      expect(await status(a)).toBe(3);
    } finally {
      await t.db.updateTable('card_check').set({ is_deleted: true }).where('id', '=', late).execute();
    }
  });

  it('refuses adjustments that would make the order due more than one payment can carry (400), changing nothing', async () => {
    const { a } = await orders();
    expect((await MOVES.confirm(a)).body.errcode).toBe(0);
    const details = (await ok('getSettlementCard', { id: a })).details as Array<{ id: number }>;
    const res = await call(
      'calcSettlementCard',
      { id: a, details: details.map((d) => ({ id: d.id, increaseAmount: 100_000_000_000 })) },
      platform,
    );
    expect(res.body.errcode).toBe(400);
    expect(res.body.errmsg).toBe(
      `details is invalid: the order would total ${TOTAL_A + 300_000_000_000} cents, more than the 100000000000 cents one payment can carry`,
    );
    expect(await status(a)).toBe(2);
    expect((await detailRow(a, details[0].id)).increaseAmount).toBe(0);
    // Up to the limit is fine, and can be paid.
    await ok('calcSettlementCard', {
      id: a,
      details: [{ id: details[1].id, increaseAmount: 100_000_000_000 - TOTAL_A }],
    });
    expect((await ok('getSettlementCard', { id: a })).totalAmount).toBe(100_000_000_000);
  });

  it('names the field of a detail of another order in calcSettlementCard', async () => {
    const { a, b } = await orders();
    expect((await MOVES.confirm(a)).body.errcode).toBe(0);
    const res = await call(
      'calcSettlementCard',
      { id: a, details: [{ id: await detailId(b), increaseAmount: 1 }] },
      platform,
    );
    expect(res.body).toEqual({
      errcode: 400,
      errmsg: 'details is invalid: the detail belongs to another settlement order',
    });
  });

  it('keeps the orders of one estimation within its unified pool when one of them is recalculated', async () => {
    // A model whose two way-4 spots belong to merchants A and B, one check each: the pool 10.00 splits 5.00 / 5.00.
    const model = await createCardModel(t.db, { name: `统一池卡 ${uniq()}` });
    const spot = async (merchant: number, shop: number) => {
      const spu = await createSpu(t.db, { merchant_id: merchant, shop_id: shop, name: `池景区 ${uniq()}` });
      const sku = await createSku(t.db, { goods_id: spu });
      await createCardModelRule(t.db, { card_model_id: model, resource_id: spu, buy_price: null, settlement_way: 4 });
      return { spu, sku };
    };
    const spotA = await spot(w.merchantA, w.shopA1);
    const spotB = await spot(w.merchantB, w.shopB1);
    // Written directly: check-ins dated in a past period (the check-in operation stamps the present).
    const check = (s: { spu: number; sku: number }, consume: number) =>
      t.db
        .insertInto('card_check')
        .values({
          card_id: w.card,
          card_model_id: model,
          sku_id: s.sku,
          resource_id: s.spu,
          checker_id: w.checker,
          tourist_name: '王五',
          tourist_mobile: '13800003333',
          consume_num: consume,
          check_time: '2026-03-15 10:00:00',
          check_date: '2026-03-15',
        })
        .execute();
    await check(spotA, 1);
    await check(spotB, 1);
    const calc = await t.post(
      '/manage-api/estimation/calcEstimationCard',
      { cardModelId: model, profit: 1000, issueNum: 1, estimationPeriod: PERIOD },
      platform.token,
    );
    expect(
      (await t.post('/manage-api/estimation/submitEstimationCard', { id: calc.body.data.id }, platform.token)).body
        .errcode,
    ).toBe(0);
    const { a, b } = await ordersOf(calc.body.data.id);
    const total = async (id: number) => (await ok('getSettlementCard', { id })).totalAmount as number;
    expect([await total(a), await total(b)]).toEqual([500, 500]);

    // Two late check-ins at A's spot: 3 : 1 would give A 7.50, but B holds 5.00 of the 10.00 already.
    await check(spotA, 2);
    await ok('afreshSettlementCard', { settlementId: a, settlementDetailId: await detailId(a) });
    expect([await total(a), await total(b)]).toEqual([500, 500]);

    // Once B's order is voided its share is free again, and A gets what its checks give it.
    expect((await call('voidSettlementCard', { id: b, reason: 'merchant B left' }, platform)).body.errcode).toBe(0);
    await ok('afreshSettlementCard', { settlementId: a, settlementDetailId: await detailId(a) });
    expect(await total(a)).toBe(750);
  });
});
