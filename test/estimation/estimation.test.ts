import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { openStore } from '../../src/platform/store/index.js';
import {
  addCheck,
  buildWorld,
  EXPECTED,
  ISSUE,
  PERIOD,
  PROFIT,
  TOTAL_A,
  TOTAL_B,
  type World,
} from '../settlement/world.js';

/** Estimation (spec A 4.4): the calculation by hand-computed figures, the cache, submit, the pages. */
const P = '/manage-api/estimation';
const ALL = ['estimation:read', 'estimation:write'];

let t: TestApp;
let w: World;
let platform: StaffSession;
let merchantA: StaffSession;

beforeAll(async () => {
  t = await createTestApp();
  w = await buildWorld(t);
  platform = await staffSession(t, { kind: 'platform', permissions: ALL });
  merchantA = await staffSession(t, { kind: 'merchant', merchantId: w.merchantA, permissions: ALL });
});
afterAll(() => t?.close());

async function ok(path: string, body: unknown, who = platform) {
  const res = await t.post(`${P}/${path}`, body, who.token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data;
}
const calcBody = () => ({ cardModelId: w.model, profit: PROFIT, issueNum: ISSUE, estimationPeriod: PERIOD });

describe('rejection matrix', () => {
  const period = { cardModelId: 1, estimationPeriod: PERIOD };
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/calcEstimationCard`,
    permission: 'estimation:write',
    validBody: calcBody,
    badInputs: [
      { body: () => ({ ...calcBody(), cardModelId: undefined }), field: 'cardModelId', rule: /required/ },
      { body: () => ({ ...calcBody(), profit: -1 }), field: 'profit' },
      { body: () => ({ ...calcBody(), issueNum: 'many' }), field: 'issueNum' },
      { body: () => ({ ...calcBody(), estimationPeriod: ['2026-03-10'] }), field: 'estimationPeriod' },
      { body: () => ({ ...calcBody(), estimationPeriod: ['2026-03-20', '2026-03-10'] }), field: 'estimationPeriod' },
      { body: () => ({ ...calcBody(), estimationPeriod: ['2026-02-30', '2026-03-10'] }), field: 'estimationPeriod' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/getEstimationCard`,
    permission: 'estimation:read',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({}), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/getEstimationCardIssueNum`,
    permission: 'estimation:read',
    validBody: () => period,
    badInputs: [{ body: () => ({ cardModelId: 1 }), field: 'estimationPeriod' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/queryEstimationCardCalcDetailPage`,
    permission: 'estimation:read',
    validBody: () => period,
    badInputs: [
      { body: () => ({ ...period, pageSize: 'ten' }), field: 'pageSize' },
      { body: () => ({ estimationPeriod: PERIOD }), field: 'cardModelId' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/queryEstimationCardCheckCalcDetailPage`,
    permission: 'estimation:read',
    validBody: () => ({ ...period, id: 1 }),
    badInputs: [{ body: () => period, field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/queryEstimationCardCheckDetailPage`,
    permission: 'estimation:read',
    validBody: () => ({ estimationDetailId: 1 }),
    badInputs: [
      { body: () => ({}), field: 'estimationDetailId' },
      { body: () => ({ estimationDetailId: 1, keywords: 'x'.repeat(65) }), field: 'keywords' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/submitEstimationCard`,
    permission: 'estimation:write',
    validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({ id: 0 }), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${P}/queryEstimationCardPage`,
    permission: 'estimation:read',
    validBody: () => ({}),
    badInputs: [
      { body: () => ({ createdTimeRange: ['yesterday', 'today'] }), field: 'createdTimeRange' },
      { body: () => ({ estimationNo: 'x'.repeat(41) }), field: 'estimationNo' },
    ],
  });
});

describe('calcEstimationCard', () => {
  it('computes each settlement way by hand-computed figures, keeps the result and logs the operation', async () => {
    const info = await ok('calcEstimationCard', calcBody());
    expect(info).toEqual({
      id: expect.any(Number),
      estimationNo: null,
      cardModelId: w.model,
      cardModelName: w.modelName,
      estimationPeriod: `${PERIOD[0]} ~ ${PERIOD[1]}`,
      totalAmount: TOTAL_A + TOTAL_B,
      profit: PROFIT,
      issueNum: ISSUE,
      checkNum: 7 + 1 + 0 + 1 + 3 + 2,
      sceneryNum: 6,
      submitted: false,
    });
    const page = await ok('queryEstimationCardCalcDetailPage', {
      cardModelId: w.model,
      estimationPeriod: PERIOD,
      pageSize: 10,
    });
    expect(page.total).toBe(6);
    const byName = Object.fromEntries(page.list.map((d: { sceneryName: string }) => [d.sceneryName, d]));
    for (const key of ['r1', 'r2', 'r3', 'r4', 'r5', 'r6'] as const) {
      const e = EXPECTED[key];
      expect(byName[w.r[key].name], key).toEqual({
        id: expect.any(Number),
        cardModelName: w.modelName,
        estimationPeriod: `${PERIOD[0]} ~ ${PERIOD[1]}`,
        resourceId: w.r[key].spu,
        sceneryName: w.r[key].name,
        merchantId: ['r1', 'r2', 'r3'].includes(key) ? w.merchantA : w.merchantB,
        settlementWay: String(e.settlementWay),
        checkNum: e.checkNum,
        ticketPriceInfo: e.ticketPriceInfo,
        estimationFactor: 1,
        settlementAmount: e.settlementAmount,
        increaseAmount: 0,
        decreaseAmount: 0,
        settlementAmountActual: e.settlementAmount,
      });
    }
    // Detail ids from the sequence of estimation_detail, ascending in resource order; paging.
    const ids = page.list.map((d: { id: number }) => d.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(6);
    const p2 = await ok('queryEstimationCardCalcDetailPage', {
      cardModelId: w.model,
      estimationPeriod: PERIOD,
      pageNum: 2,
      pageSize: 4,
    });
    expect(p2).toEqual({ list: page.list.slice(4), total: 6 });

    const log = await t.db
      .selectFrom('operate_log')
      .select(['module', 'action', 'biz_id', 'success'])
      .where('account_id', '=', platform.userId)
      .where('action', '=', '计算结算预估')
      .execute();
    expect(log).toContainEqual({ module: '结算预估', action: '计算结算预估', biz_id: String(info.id), success: true });
    expect(await ok('getEstimationCard', { id: info.id })).toEqual(info);
  });

  it('estimates a period of any length (issue 36: the spec sets no bound; the figures are aggregates)', async () => {
    const period = await ok('calcEstimationCard', calcBody());
    const decades = await ok('calcEstimationCard', {
      ...calcBody(),
      estimationPeriod: ['2020-01-01 00:00:00', '2045-12-31 23:59:59'],
    });
    expect(decades.estimationPeriod).toBe('2020-01-01 00:00:00 ~ 2045-12-31 23:59:59');
    expect(decades.checkNum).toBeGreaterThanOrEqual(period.checkNum);
    expect(decades.sceneryNum).toBe(period.sceneryNum);
  });

  it('pages the check records behind a calculated detail, newest first', async () => {
    await ok('calcEstimationCard', calcBody());
    const details = await ok('queryEstimationCardCalcDetailPage', {
      cardModelId: w.model,
      estimationPeriod: PERIOD,
      pageSize: 1,
    });
    const r1 = details.list[0].id; // resources in id order, R1 first
    const page = await ok('queryEstimationCardCheckCalcDetailPage', {
      cardModelId: w.model,
      estimationPeriod: PERIOD,
      id: r1,
      pageSize: 3,
    });
    expect(page.total).toBe(4);
    expect(page.list[0]).toEqual({
      cardModelName: w.modelName,
      sceneryName: w.r.r1.name,
      touristName: '张三',
      touristPhone: '13800001111',
      cardNumber: w.cardNumber,
      checkTime: '2026-03-17 10:00:00',
      checkerId: w.checker,
      checkerName: '检票员小王',
    });
    const unknown = await t.post(
      `${P}/queryEstimationCardCheckCalcDetailPage`,
      { cardModelId: w.model, estimationPeriod: PERIOD, id: 999_999_999 },
      platform.token,
    );
    expect(unknown.body.errcode).toBe(404);
  });

  it('answers an empty page from the calc-detail pages once the cached result is gone or for a period never calculated; get and submit answer "run the calculation again"', async () => {
    const info = await ok('calcEstimationCard', { ...calcBody(), estimationPeriod: ['2026-03-01', '2026-03-31'] });
    const q = { cardModelId: w.model, estimationPeriod: ['2026-03-01', '2026-03-31'] };
    const held = await ok('queryEstimationCardCalcDetailPage', q);
    expect(held.total).toBe(6);
    const heldId = held.list[0].id;
    expect((await ok('queryEstimationCardCheckCalcDetailPage', { ...q, id: heldId })).total).toBeGreaterThan(0);
    await t.store.del(`estimation:calc:${info.id}`);
    // Spec A 4.4 rule 2: data only while the cache entry exists, so nothing held is an empty page, not a refusal.
    const empty = { errcode: 0, errmsg: 'success', data: { list: [], total: 0 } };
    expect((await t.post(`${P}/queryEstimationCardCalcDetailPage`, q, platform.token)).body).toEqual(empty);
    expect(
      (await t.post(`${P}/queryEstimationCardCalcDetailPage`, { ...q, pageNum: 3, pageSize: 5 }, platform.token)).body,
    ).toEqual(empty);
    expect(
      (await t.post(`${P}/queryEstimationCardCheckCalcDetailPage`, { ...q, id: heldId }, platform.token)).body,
    ).toEqual(empty);
    expect((await t.post(`${P}/queryEstimationCardCheckCalcDetailPage`, { ...q, id: 1 }, platform.token)).body).toEqual(
      empty,
    );
    // getEstimationCard and submitEstimationCard of a calculation no longer held keep the expiry code.
    const gone = await t.post(`${P}/getEstimationCard`, { id: info.id }, platform.token);
    expect(gone.body.errcode).toBe(1_005_000_001);
    expect(gone.body.errmsg).toMatch(/run the calculation again/);
    expect((await t.post(`${P}/submitEstimationCard`, { id: info.id }, platform.token)).body.errcode).toBe(
      1_005_000_001,
    );
    // A period never calculated, and a card model that does not exist: nothing held either.
    const never = { cardModelId: w.model, estimationPeriod: ['2025-01-01', '2025-01-02'] };
    expect((await t.post(`${P}/queryEstimationCardCalcDetailPage`, never, platform.token)).body).toEqual(empty);
    expect(
      (await t.post(`${P}/queryEstimationCardCheckCalcDetailPage`, { ...never, id: heldId }, platform.token)).body,
    ).toEqual(empty);
    expect(
      (await t.post(`${P}/queryEstimationCardCalcDetailPage`, { ...never, cardModelId: 999_999_999 }, platform.token))
        .body,
    ).toEqual(empty);
    // The period is still validated, and the pages stay platform-only.
    expect(
      (
        await t.post(
          `${P}/queryEstimationCardCalcDetailPage`,
          { ...never, estimationPeriod: ['2025-01-02', '2025-01-01'] },
          platform.token,
        )
      ).body.errcode,
    ).toBe(400);
    expect(
      (await t.post(`${P}/queryEstimationCardCheckCalcDetailPage`, { ...never, id: 1 }, merchantA.token)).body.errcode,
    ).toBe(403);
  });

  it('answers an empty page once the latest-calculation key alone has expired', async () => {
    const period = ['2026-03-02', '2026-03-30'];
    await ok('calcEstimationCard', { ...calcBody(), estimationPeriod: period });
    const q = { cardModelId: w.model, estimationPeriod: period };
    expect((await ok('queryEstimationCardCalcDetailPage', q)).total).toBe(6);
    // The (card model, period) → latest calculation key, periods in whole seconds of the service zone.
    const start = new Date(2026, 2, 2).getTime() / 1000;
    const end = Math.floor(new Date(2026, 2, 30, 23, 59, 59, 999).getTime() / 1000);
    await t.store.del(`estimation:latest:${w.model}:${start}:${end}`);
    expect((await t.post(`${P}/queryEstimationCardCalcDetailPage`, q, platform.token)).body).toEqual({
      errcode: 0,
      errmsg: 'success',
      data: { list: [], total: 0 },
    });
  });

  it('serves a calculation held by one instance from another (its own store connection under Redis)', async () => {
    const store = t.config.redisUrl ? await openStore(t.config.redisUrl, t.config.storePrefix) : t.store;
    const other = await createTestApp({}, { db: { database: t.database, db: t.db, close: async () => {} }, store });
    try {
      const period = ['2026-03-12', '2026-03-19'];
      const info = await ok('calcEstimationCard', { ...calcBody(), estimationPeriod: period });
      const there = await other.post(
        `${P}/queryEstimationCardCalcDetailPage`,
        { cardModelId: w.model, estimationPeriod: period },
        platform.token,
      );
      expect(there.body.errcode, there.body.errmsg).toBe(0);
      expect(there.body.data.total).toBe(6);
      const sub = await other.post(`${P}/submitEstimationCard`, { id: info.id }, platform.token);
      expect(sub.body.errcode, sub.body.errmsg).toBe(0);
    } finally {
      await other.close();
      if (store !== t.store) await store.close();
    }
  });

  it('refuses an unknown card model (404) and merchant users (403)', async () => {
    expect(
      (await t.post(`${P}/calcEstimationCard`, { ...calcBody(), cardModelId: 999_999_999 }, platform.token)).body,
    ).toEqual({ errcode: 404, errmsg: 'card model not found' });
    const res = await t.post(`${P}/calcEstimationCard`, calcBody(), merchantA.token);
    expect(res.body).toEqual({ errcode: 403, errmsg: 'only platform users can work with estimations' });
    expect((await t.post(`${P}/queryEstimationCardPage`, {}, merchantA.token)).body.errcode).toBe(403);
  });

  it('refuses a way-4 pool beyond exact cents with the settlement code', async () => {
    const res = await t.post(
      `${P}/calcEstimationCard`,
      { ...calcBody(), issueNum: 100_000_000, profit: 100_000_000 },
      platform.token,
    );
    expect(res.body.errcode).toBe(1_006_000_001);
  });

  it('counts the cards of the model activated in the period', async () => {
    expect(
      await ok('getEstimationCardIssueNum', { cardModelId: w.model, estimationPeriod: ['2026-03-01', '2026-03-01'] }),
    ).toBe(1);
    expect(
      await ok('getEstimationCardIssueNum', { cardModelId: w.model, estimationPeriod: ['2026-03-02', '2026-12-31'] }),
    ).toBe(0);
  });
});

describe('detail ids and periods (QA 2026-11-27)', () => {
  type Row = { id: number; resourceId: number };
  const detailPage = async (period: string[]): Promise<Row[]> =>
    (await ok('queryEstimationCardCalcDetailPage', { cardModelId: w.model, estimationPeriod: period, pageSize: 50 }))
      .list;

  it('gives every calculated detail an id of its own, kept by the submitted sheet and read by the check-record page', async () => {
    const march = ['2026-03-01', '2026-03-31'];
    const a = await ok('calcEstimationCard', { ...calcBody(), estimationPeriod: march });
    const idsA = await detailPage(march);
    const b = await ok('calcEstimationCard', calcBody());
    const idsB = await detailPage(PERIOD);
    expect(idsA).toHaveLength(6);
    expect(idsB).toHaveLength(6);
    const all = [...idsA, ...idsB].map((d) => d.id);
    expect(new Set(all).size).toBe(12);

    // Submitted: the persisted details carry the ids the client was shown.
    await ok('submitEstimationCard', { id: a.id });
    const persisted = await t.db
      .selectFrom('estimation_detail')
      .select(['id', 'resource_id'])
      .where('sheet_id', '=', a.id)
      .orderBy('id')
      .execute();
    expect(persisted.map((r) => ({ id: Number(r.id), resourceId: Number(r.resource_id) }))).toEqual(
      idsA.map((d) => ({ id: d.id, resourceId: d.resourceId })),
    );
    const r1a = idsA.find((d) => d.resourceId === w.r.r1.spu)!.id;
    const sheetChecks = await ok('queryEstimationCardCheckDetailPage', { estimationDetailId: r1a, pageSize: 50 });
    const calcChecks = await ok('queryEstimationCardCheckCalcDetailPage', {
      cardModelId: w.model,
      estimationPeriod: march,
      id: r1a,
      pageSize: 50,
    });
    expect(sheetChecks).toEqual(calcChecks);
    expect(sheetChecks.total).toBe(6); // R1's living March records, 03-09 and 03-21 included

    // Held, not submitted: the calculation's own records for that detail.
    const r1b = idsB.find((d) => d.resourceId === w.r.r1.spu)!.id;
    const held = await ok('queryEstimationCardCheckDetailPage', { estimationDetailId: r1b, pageSize: 50 });
    expect(held).toEqual(
      await ok('queryEstimationCardCheckCalcDetailPage', {
        cardModelId: w.model,
        estimationPeriod: PERIOD,
        id: r1b,
        pageSize: 50,
      }),
    );
    expect(held.total).toBe(4);
    expect(held.list.every((c: { sceneryName: string }) => c.sceneryName === w.r.r1.name)).toBe(true);
    expect((await ok('queryEstimationCardCheckDetailPage', { estimationDetailId: r1b, keywords: '李四' })).total).toBe(
      1,
    );

    // Gone from the cache and never submitted: 404, never another detail's records.
    await t.store.del(`estimation:calc:${b.id}`);
    expect(
      (await t.post(`${P}/queryEstimationCardCheckDetailPage`, { estimationDetailId: r1b }, platform.token)).body
        .errcode,
    ).toBe(404);
  });

  it('hands two concurrent calculations disjoint detail ids', async () => {
    const periods = [
      ['2026-03-02', '2026-03-30'],
      ['2026-03-03', '2026-03-29'],
    ];
    await Promise.all(periods.map((p) => ok('calcEstimationCard', { ...calcBody(), estimationPeriod: p })));
    const [x, y] = await Promise.all(periods.map(detailPage));
    expect(new Set([...x, ...y].map((d) => d.id)).size).toBe(12);
  });

  it('finds a calculation whichever way the same period is written (bare dates or seconds)', async () => {
    const bare = ['2026-04-01', '2026-04-30'];
    const full = ['2026-04-01 00:00:00', '2026-04-30 23:59:59'];
    const one = await ok('calcEstimationCard', { ...calcBody(), estimationPeriod: bare });
    expect(one.estimationPeriod).toBe(`${full[0]} ~ ${full[1]}`);
    const rows = await detailPage(full);
    expect(rows).toHaveLength(6);
    expect(
      (
        await ok('queryEstimationCardCheckCalcDetailPage', {
          cardModelId: w.model,
          estimationPeriod: full,
          id: rows[0].id,
        })
      ).total,
    ).toBe(0);
    const two = await ok('calcEstimationCard', { ...calcBody(), estimationPeriod: full });
    const again = await detailPage(bare);
    expect(again.map((d) => d.id)).not.toEqual(rows.map((d) => d.id)); // the later calculation
    expect(await ok('getEstimationCard', { id: two.id })).toEqual(two);
    expect(
      (
        await ok('queryEstimationCardCheckCalcDetailPage', {
          cardModelId: w.model,
          estimationPeriod: bare,
          id: again[0].id,
        })
      ).total,
    ).toBe(0);
  });
});

describe('submitEstimationCard', () => {
  it('persists the sheet and one order per settlement merchant with details and check snapshots; twice → 409', async () => {
    const info = await ok('calcEstimationCard', calcBody());
    const sub = await ok('submitEstimationCard', { id: info.id });
    expect(sub).toEqual({
      id: info.id,
      estimationNo: expect.stringMatching(new RegExp(`^EST\\d{8}${info.id}$`)),
      settlementIds: [expect.any(Number), expect.any(Number)],
    });
    const orders = await t.db
      .selectFrom('settlement')
      .selectAll()
      .where('estimation_id', '=', info.id)
      .orderBy('settlement_merchant_id')
      .execute();
    expect(
      orders.map((o) => [o.settlement_merchant_id, o.settlement_status, Number(o.total_amount), Number(o.check_num)]),
    ).toEqual([
      [w.merchantA, 1, TOTAL_A, 8],
      [w.merchantB, 1, TOTAL_B, 6],
    ]);
    const snaps = await t.db
      .selectFrom('settlement_check_detail')
      .select(['settlement_id'])
      .where(
        'settlement_id',
        'in',
        orders.map((o) => o.id),
      )
      .execute();
    // R1 4 records, R2 1; R4 1, R5 1, R6 1
    expect(snaps.filter((s) => s.settlement_id === orders[0].id)).toHaveLength(5);
    expect(snaps.filter((s) => s.settlement_id === orders[1].id)).toHaveLength(3);

    const again = await t.post(`${P}/submitEstimationCard`, { id: info.id }, platform.token);
    expect(again.body).toEqual({
      errcode: 409,
      errmsg: `estimation ${info.id} was already submitted as ${sub.estimationNo}`,
    });

    expect(await ok('getEstimationCard', { id: info.id })).toEqual({
      ...info,
      estimationNo: sub.estimationNo,
      submitted: true,
    });
    const page = await ok('queryEstimationCardPage', { estimationNo: sub.estimationNo });
    expect(page).toEqual({
      list: [
        expect.objectContaining({
          id: info.id,
          estimationNo: sub.estimationNo,
          sceneryNum: 6,
          totalAmount: TOTAL_A + TOTAL_B,
          startTime: PERIOD[0],
          endTime: PERIOD[1],
        }),
      ],
      total: 1,
    });
    const detail = await t.db
      .selectFrom('estimation_detail')
      .select('id')
      .where('sheet_id', '=', info.id)
      .where('resource_id', '=', w.r.r1.spu)
      .executeTakeFirstOrThrow();
    const checks = await ok('queryEstimationCardCheckDetailPage', { estimationDetailId: detail.id, keywords: '李四' });
    expect(checks).toEqual({
      list: [
        expect.objectContaining({ touristName: '李四', touristPhone: '13900002222', checkTime: '2026-03-11 09:00:00' }),
      ],
      total: 1,
    });
    expect(
      (await t.post(`${P}/queryEstimationCardCheckDetailPage`, { estimationDetailId: 999_999_999 }, platform.token))
        .body.errcode,
    ).toBe(404);
  });

  it('snapshots only the checks the calculation saw, and lets one of two concurrent submits win', async () => {
    const info = await ok('calcEstimationCard', { ...calcBody(), estimationPeriod: ['2026-03-10', '2026-03-20'] });
    await addCheck(t, w, 'r2', '2026-03-16 08:00:00');
    const answers = await Promise.all(
      [1, 2].map(() => t.post(`${P}/submitEstimationCard`, { id: info.id }, platform.token)),
    );
    expect(answers.map((a) => a.body.errcode).sort()).toEqual([0, 409]);
    const orders = await t.db
      .selectFrom('settlement')
      .select(['id', 'check_num'])
      .where('estimation_id', '=', info.id)
      .execute();
    expect(orders).toHaveLength(2);
    const snaps = await t.db
      .selectFrom('settlement_check_detail')
      .select('check_id')
      .where(
        'settlement_id',
        'in',
        orders.map((o) => o.id),
      )
      .execute();
    expect(snaps).toHaveLength(8);
  });
});
