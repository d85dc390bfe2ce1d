import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertOpenApp } from '../../src/platform/auth/open-app.repository.js';
import { sign, signingString } from '../../src/platform/auth/open-signature.js';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { buildStatWorld, sheetRows, type StatWorld } from './stat-fixtures.js';

/** Statistics (spec B 4.1, docs/domain.md §6) against the hand-counted data set of stat-fixtures.ts. */
const M = '/manage-api/statistics';
const PROFIT = '/manage-api/profitAccounting/cardModel';
const OPEN_MODEL = '/open-api/statistics/statCardModel';
const READ = 'statistics:read';
const APP_KEY = 'stats-test-app';
const APP_SECRET = 'stats-test-secret-0123456789';

let t: TestApp;
let w: StatWorld;
let platform: StaffSession;
let merchantA: StaffSession;
let merchantB: StaffSession;
let shopA1: StaffSession;
let shopA2: StaffSession;

beforeAll(async () => {
  t = await createTestApp();
  w = await buildStatWorld(t.db);
  platform = await staffSession(t, { kind: 'platform', permissions: [READ] });
  merchantA = await staffSession(t, { kind: 'merchant', merchantId: w.merchantA, permissions: [READ] });
  merchantB = await staffSession(t, { kind: 'merchant', merchantId: w.merchantB, permissions: [READ] });
  shopA1 = await staffSession(t, { kind: 'shop', shopId: w.shopA1, permissions: [READ] });
  shopA2 = await staffSession(t, { kind: 'shop', shopId: w.shopA2, permissions: [READ] });
  await upsertOpenApp(t.db, { appKey: APP_KEY, appSecret: APP_SECRET, name: 'statistics partner' });
});
afterAll(() => t?.close());

async function ok(path: string, body: unknown, who: StaffSession) {
  const res = await t.post(path, body, who.token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data;
}
const byModel = (rows: Array<{ cardModelId: number; [k: string]: unknown }>, field: string) =>
  Object.fromEntries(rows.map((r) => [r.cardModelId, r[field]]));

describe('rejection matrix', () => {
  const range = (a: string, b: string) => [a, b];
  const badRange = (field: string, wrap: (v: unknown) => unknown) => [
    { body: () => wrap(range('2026-03-05', '2026-03-01')), field, rule: /after the end/ },
    { body: () => wrap(range('2026-02-30', '2026-03-01')), field: `${field}[0]`, rule: /not a real date/ },
    { body: () => wrap(['2026-03-01']), field },
    { body: () => wrap(range('yesterday', '2026-03-01')), field },
  ];
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: PROFIT,
    permission: READ,
    validBody: () => ({ cardModelId: w.m1 }),
    badInputs: [
      { body: () => ({ cardModelId: 0 }), field: 'cardModelId' },
      ...badRange('activeTimeRange', (v) => ({ activeTimeRange: v })),
    ],
  });
  for (const op of ['statCardIssue', 'statCardStat']) {
    itRefusesWhatStaffOperationsRefuse(() => t, {
      path: `${M}/${op}`,
      permission: READ,
      validBody: () => ({}),
      badInputs: [
        { body: () => ({ merchantId: 'A' }), field: 'merchantId' },
        { body: () => ({ shopId: -1 }), field: 'shopId' },
        ...badRange('activeTimeRange', (v) => ({ activeTimeRange: v })),
      ],
    });
  }
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${M}/exportStatCardIssue`,
    permission: READ,
    validBody: () => ({}),
    badInputs: [
      { body: () => ({ merchantId: 0 }), field: 'merchantId' },
      ...badRange('activeTimeRange', (v) => ({ activeTimeRange: v })),
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: OPEN_MODEL,
    permission: READ,
    validBody: () => ({ activeTimeType: 1 }),
    badInputs: [
      { body: () => ({ activeTimeType: 3 }), field: 'activeTimeType' },
      { body: () => ({ donationFlag: 'maybe' }), field: 'donationFlag' },
      { body: () => ({ businessName: 'x'.repeat(65) }), field: 'businessName' },
      { body: () => ({ activeByName: 'x'.repeat(65) }), field: 'activeByName' },
      ...badRange('activeTimeRange', (v) => ({ activeTimeRange: v })),
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: `${M}/statCardArea`,
    permission: READ,
    validBody: () => ({}),
    badInputs: [
      { body: () => ({ provinceCode: '3301' }), field: 'provinceCode' },
      { body: () => ({ provinceCode: '3'.repeat(40) }), field: 'provinceCode' },
      { body: () => ({ cardModelId: 'M1' }), field: 'cardModelId' },
    ],
  });
  for (const op of ['statHomeCardCheckNum', 'statHomeCardSalesAmount']) {
    itRefusesWhatStaffOperationsRefuse(() => t, {
      path: `${M}/${op}`,
      permission: READ,
      validBody: () => ({ datePair: ['2026-03-01', '2026-03-31'] }),
      badInputs: badRange('datePair', (v) => ({ datePair: v })),
    });
  }
});

describe('statCardIssue and statCardStat', () => {
  it('count activated cards per model for the platform, a merchant and its shops', async () => {
    expect(await ok(`${M}/statCardIssue`, {}, platform)).toEqual([
      { orderNo: 1, cardModelId: w.m1, cardModelName: w.m1Name, activeNum: 6 },
      { orderNo: 2, cardModelId: w.m2, cardModelName: w.m2Name, activeNum: 2 },
    ]);
    expect(byModel(await ok(`${M}/statCardIssue`, {}, merchantA), 'activeNum')).toEqual({ [w.m1]: 5 });
    // B sold c9 (M1) and owns M2 (c6, c7).
    expect(byModel(await ok(`${M}/statCardIssue`, {}, merchantB), 'activeNum')).toEqual({ [w.m1]: 1, [w.m2]: 2 });
    expect(byModel(await ok(`${M}/statCardIssue`, {}, shopA1), 'activeNum')).toEqual({ [w.m1]: 2 });
    expect(byModel(await ok(`${M}/statCardIssue`, { shopId: w.shopA2 }, merchantA), 'activeNum')).toEqual({
      [w.m1]: 2,
    });
    expect(byModel(await ok(`${M}/statCardIssue`, { merchantId: w.merchantB }, platform), 'activeNum')).toEqual({
      [w.m1]: 1,
      [w.m2]: 2,
    });
    expect(
      byModel(await ok(`${M}/statCardIssue`, { activeTimeRange: ['2026-03-01', '2026-03-02'] }, platform), 'activeNum'),
    ).toEqual({ [w.m1]: 3, [w.m2]: 1 });
  });

  it('statCardStat counts only the cards in force now', async () => {
    expect(byModel(await ok(`${M}/statCardStat`, {}, platform), 'activeNum')).toEqual({ [w.m1]: 4, [w.m2]: 1 });
    expect(byModel(await ok(`${M}/statCardStat`, {}, merchantA), 'activeNum')).toEqual({ [w.m1]: 3 });
    expect(await ok(`${M}/statCardStat`, {}, shopA2)).toEqual([
      { orderNo: 1, cardModelId: w.m1, cardModelName: w.m1Name, activeNum: 1 },
    ]);
  });

  it("refuse another merchant's or shop's seller filter (403) and unknown ones (404)", async () => {
    for (const [who, body, code] of [
      [merchantA, { merchantId: w.merchantB }, 403],
      [merchantA, { shopId: w.shopB1 }, 403],
      [shopA1, { shopId: w.shopA2 }, 403],
      [shopA1, { merchantId: w.merchantB }, 403],
      [platform, { shopId: 999_999_999 }, 404],
      [platform, { merchantId: 999_999_999 }, 404],
    ] as const) {
      for (const op of ['statCardIssue', 'statCardStat', 'exportStatCardIssue']) {
        const res = await t.post(`${M}/${op}`, body, who.token);
        expect(res.body.errcode, `${op} ${JSON.stringify(body)}`).toBe(code);
      }
    }
  });
});

describe('exportStatCardIssue', () => {
  const sheet = sheetRows;

  it("streams the platform's rows with a total (GET with the fields in the query string)", async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `${M}/exportStatCardIssue`,
      headers: { authorization: `Bearer ${platform.token}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('spreadsheetml');
    expect(String(res.headers['content-disposition'])).toContain('.xlsx');
    expect(await sheet(res.rawPayload)).toEqual([
      ['序号', '卡型ID', '卡型名称', '激活数量'],
      [1, w.m1, w.m1Name, 6],
      [2, w.m2, w.m2Name, 2],
      ['合计', null, null, 8].map((v) => v ?? undefined),
    ]);
    const filtered = await t.app.inject({
      method: 'GET',
      url: `${M}/exportStatCardIssue?merchantId=${w.merchantB}`,
      headers: { authorization: `Bearer ${platform.token}` },
    });
    expect((await sheet(filtered.rawPayload)).slice(1, 3)).toEqual([
      [1, w.m1, w.m1Name, 1],
      [2, w.m2, w.m2Name, 2],
    ]);
  });

  it("holds only the merchant's own figures (POST)", async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `${M}/exportStatCardIssue`,
      payload: {},
      headers: { authorization: `Bearer ${merchantA.token}` },
    });
    const rows = await sheet(res.rawPayload);
    expect(rows.slice(1)).toEqual([
      [1, w.m1, w.m1Name, 5],
      ['合计', undefined, undefined, 5],
    ]);
  });
});

describe('statCardModel (open channel)', () => {
  const call = (body: unknown, who: StaffSession) => ok(OPEN_MODEL, body, who);

  it('groups by day with the state counts of each group', async () => {
    const page = await call(
      { activeTimeType: 1, activeTimeRange: ['2026-03-01', '2026-05-31'], pageSize: 50 },
      platform,
    );
    expect(page.total).toBe(8);
    expect(page.list.map((r: any) => r.dateRange)).toEqual([
      '2026-05-20',
      '2026-04-10',
      '2026-04-10',
      '2026-03-05',
      '2026-03-02',
      '2026-03-01',
      '2026-03-01',
      '2026-03-01',
    ]);
    const c7 = page.list[0];
    expect(c7).toMatchObject({
      cardModelId: w.m2,
      businessId: w.shopB1,
      isDonation: 0,
      activeCount: 1,
      expireCount: 1,
      bindCount: 0,
      electronCount: 1,
      chipCount: 0,
    });
    // 2026-04-10: c5 sold by the merchant itself (no shop) first, then c4 of shop A2.
    expect(page.list[1]).toMatchObject({
      cardModelId: w.m1,
      businessId: w.merchantA,
      businessName: w.merchantAName,
      expireCount: 1,
      chipCount: 1,
      disableCount: 0,
    });
    expect(page.list[2]).toMatchObject({ businessId: w.shopA2, disableCount: 1, expireCount: 0 });
    expect(page.list[4]).toMatchObject({ businessId: w.shopA2, noBindCount: 1 });
    expect(
      page.list.slice(5).map((r: any) => [r.cardModelId, r.businessId, r.isDonation, r.bindCount, r.chipCount]),
    ).toEqual([
      [w.m1, w.shopA1, 0, 1, 1],
      [w.m1, w.shopA1, 1, 1, 0],
      [w.m2, w.shopB1, 0, 1, 0],
    ]);
    const sum = (k: string) => page.list.reduce((s: number, r: any) => s + r[k], 0);
    expect(sum('activeCount')).toBe(8);
    expect(sum('noBindCount') + sum('bindCount') + sum('disableCount') + sum('expireCount')).toBe(8);
  });

  it('groups by month, pages, and filters by model, donation and business name', async () => {
    const first = await call({ activeTimeType: 2, cardModelId: w.m1, pageSize: 4 }, platform);
    expect(first.total).toBe(6);
    expect(first.list.map((r: any) => r.dateRange)).toEqual(['2026-04', '2026-04', '2026-03', '2026-03']);
    const second = await call({ activeTimeType: 2, cardModelId: w.m1, pageSize: 4, pageNum: 2 }, platform);
    expect(second.list.map((r: any) => [r.dateRange, r.businessId])).toEqual([
      ['2026-03', w.shopA2],
      ['2026-03', w.shopB1],
    ]);
    const donated = await call({ activeTimeType: 2, donationFlag: true }, platform);
    expect(donated.list.map((r: any) => [r.businessId, r.activeCount])).toEqual([[w.shopA1, 1]]);
    const named = await call({ activeTimeType: 2, businessName: w.merchantAName.slice(-8) }, platform);
    expect(named.list.map((r: any) => r.businessId)).toEqual([w.merchantA]);
  });

  it('scopes a merchant and a shop to their own cards', async () => {
    const a = await call({ activeTimeType: 2 }, merchantA);
    expect(a.list.reduce((s: number, r: any) => s + r.activeCount, 0)).toBe(5);
    const s = await call({ activeTimeType: 2 }, shopA1);
    expect(s.list.map((r: any) => r.businessId)).toEqual([w.shopA1, w.shopA1]);
  });

  it('answers a signed open app as the platform', async () => {
    const raw = JSON.stringify({ activeTimeType: 2, cardModelId: w.m2 });
    const ts = String(Date.now());
    const nonce = randomBytes(12).toString('hex');
    const res = await t.app.inject({
      method: 'POST',
      url: OPEN_MODEL,
      payload: raw,
      headers: {
        'content-type': 'application/json',
        'x-app-key': APP_KEY,
        'x-timestamp': ts,
        'x-nonce': nonce,
        'x-sign': sign(APP_SECRET, signingString('POST', OPEN_MODEL, ts, nonce, raw)),
      },
    });
    const body = res.json();
    expect(body.errcode, body.errmsg).toBe(0);
    expect(body.data.list.map((r: any) => [r.dateRange, r.activeCount])).toEqual([
      ['2026-05', 1],
      ['2026-03', 1],
    ]);
  });
});

describe('statCardArea', () => {
  const dist = (items: Array<{ code: string; count: number; rate: number }>) =>
    Object.fromEntries(items.map((i) => [i.code, [i.count, i.rate]]));

  it('counts the holder of each bound card by gender, age band and city, member record first', async () => {
    // H2 holds c2 and c7: counted with each card.
    const p = await ok(`${M}/statCardArea`, {}, platform);
    expect(dist(p.genderDistribution)).toEqual({ 1: [2, 33.33], 2: [3, 50], 0: [1, 16.67] });
    expect(p.genderDistribution.map((g: any) => g.label)).toEqual(['男', '女', '未知']);
    expect(dist(p.ageDistribution)).toEqual({
      lt18: [2, 33.33],
      '18-30': [0, 0],
      '31-40': [1, 16.67],
      '41-50': [1, 16.67],
      '51-60': [0, 0],
      gt60: [1, 16.67],
      unknown: [1, 16.67],
    });
    expect(p.cityDistributions.map((c: any) => [c.label, c.code, c.count, c.type])).toEqual([
      ['上海市', '310100', 2, 3],
      ['杭州市', '330100', 2, 3],
      ['未知', '0', 1, 3],
      ['北京市', '110100', 1, 3],
    ]);
  });

  it("keeps one province's cities and one model's holders", async () => {
    const zj = await ok(`${M}/statCardArea`, { provinceCode: '330000' }, platform);
    expect(zj.cityDistributions.map((c: any) => [c.label, c.count, c.rate])).toEqual([['杭州市', 2, 100]]);
    expect(zj.genderDistribution.reduce((s: number, g: any) => s + g.count, 0)).toBe(6);
    const m2 = await ok(`${M}/statCardArea`, { cardModelId: w.m2 }, platform);
    expect(dist(m2.genderDistribution)).toEqual({ 1: [1, 50], 2: [1, 50] });
  });

  it("scopes holders to the merchant's or shop's cards", async () => {
    const a = await ok(`${M}/statCardArea`, {}, merchantA);
    expect(dist(a.genderDistribution)).toEqual({ 1: [1, 33.33], 2: [2, 66.67] });
    const b = await ok(`${M}/statCardArea`, {}, merchantB);
    expect(dist(b.genderDistribution)).toEqual({ 1: [1, 33.33], 2: [1, 33.33], 0: [1, 33.33] });
    const s = await ok(`${M}/statCardArea`, {}, shopA2);
    expect(s.genderDistribution.every((g: any) => g.count === 0)).toBe(true);
    expect(s.cityDistributions).toEqual([]);
  });
});

describe('home figures', () => {
  const march = { datePair: ['2026-03-01', '2026-03-31'] };

  it("statHomeCardCheckNum sums entries per model at the scope's spots", async () => {
    expect(await ok(`${M}/statHomeCardCheckNum`, march, platform)).toEqual([
      { cardModelId: w.m1, cardModelName: w.m1Name, checkNum: 13 },
      { cardModelId: w.m2, cardModelName: w.m2Name, checkNum: 2 },
    ]);
    expect(
      byModel(await ok(`${M}/statHomeCardCheckNum`, { datePair: ['2026-03-01', '2026-03-03'] }, platform), 'checkNum'),
    ).toEqual({ [w.m1]: 3, [w.m2]: 2 });
    expect(byModel(await ok(`${M}/statHomeCardCheckNum`, march, merchantA), 'checkNum')).toEqual({ [w.m1]: 5 });
    expect(byModel(await ok(`${M}/statHomeCardCheckNum`, march, merchantB), 'checkNum')).toEqual({
      [w.m1]: 8,
      [w.m2]: 2,
    });
    expect(byModel(await ok(`${M}/statHomeCardCheckNum`, march, shopA1), 'checkNum')).toEqual({ [w.m1]: 5 });
    expect(await ok(`${M}/statHomeCardCheckNum`, march, shopA2)).toEqual([]);
    // The revoked check of c5 (April) never counts; absent datePair is this month (no data).
    expect(await ok(`${M}/statHomeCardCheckNum`, { datePair: ['2026-04-01', '2026-04-30'] }, platform)).toEqual([]);
    expect(await ok(`${M}/statHomeCardCheckNum`, {}, platform)).toEqual([]);
  });

  it('statHomeCardSalesAmount prices each sold card at its activation', async () => {
    const spring = { datePair: ['2026-03-01', '2026-05-31'] };
    expect(await ok(`${M}/statHomeCardSalesAmount`, spring, platform)).toEqual([
      { cardModelId: w.m1, cardModelName: w.m1Name, salesNum: 6, donationNum: 1, salesAmount: 3 * 19800 + 2 * 25800 },
      { cardModelId: w.m2, cardModelName: w.m2Name, salesNum: 2, donationNum: 0, salesAmount: 2 * 9800 },
    ]);
    expect(await ok(`${M}/statHomeCardSalesAmount`, spring, merchantA)).toEqual([
      { cardModelId: w.m1, cardModelName: w.m1Name, salesNum: 5, donationNum: 1, salesAmount: 2 * 19800 + 2 * 25800 },
    ]);
    expect(
      byModel(
        await ok(`${M}/statHomeCardSalesAmount`, { datePair: ['2026-04-01', '2026-04-30'] }, shopA2),
        'salesAmount',
      ),
    ).toEqual({ [w.m1]: 25800 });
  });
});

describe('profitAccounting/cardModel', () => {
  it('accounts a model for the platform', async () => {
    const p = await ok(PROFIT, { cardModelId: w.m1 }, platform);
    expect(p).toMatchObject({
      cardModelId: w.m1,
      cardModelName: w.m1Name,
      totalActiveCardNum: 6,
      cardNoNum: 7,
      totalCheckNum: 13,
      oneTimes: 1,
      twoTimes: 0,
      threeTimes: 0,
      fourTimes: 0,
      fiveTimes: 1,
      sixTimes: 0,
      sixPlusTimes: 1,
      cardBindCardNoCount: 4,
      cardBindIdCount: 4,
      usedPercent: 50,
      averageUsedTimes: 2.17,
      totalNum: 6,
      donationNum: 1,
      youZhengNum: 3,
    });
    expect(p.channelList).toEqual([
      { channel: '1', activeNum: 2 },
      { channel: '3', activeNum: 1 },
      { channel: '6', activeNum: 3 },
    ]);
    expect(p.resourceList).toEqual([
      {
        resourceId: w.spuA1,
        resourceName: 'Lake A1',
        buyPrice: 5000,
        checkNum: 5,
        shopId: w.shopA1,
        shopName: expect.any(String),
        cityId: 330100,
        cityName: '杭州市',
      },
      {
        resourceId: w.spuB,
        resourceName: 'Hill B',
        buyPrice: 3000,
        checkNum: 8,
        shopId: w.shopB1,
        shopName: expect.any(String),
        cityId: 310100,
        cityName: '上海市',
      },
    ]);
  });

  it('narrows the cohort by activation time, and spans every model without cardModelId', async () => {
    const march = await ok(PROFIT, { cardModelId: w.m1, activeTimeRange: ['2026-03-01', '2026-03-31'] }, platform);
    expect(march).toMatchObject({ totalActiveCardNum: 4, cardNoNum: 7, totalCheckNum: 13, usedPercent: 75 });
    const all = await ok(PROFIT, {}, platform);
    expect(all).toMatchObject({
      cardModelId: null,
      totalActiveCardNum: 8,
      totalCheckNum: 15,
      oneTimes: 1,
      twoTimes: 1,
      fiveTimes: 1,
      sixPlusTimes: 1,
    });
    // SB's rules disagree on the price (30.00 for M1, 40.00 for M2).
    expect(all.resourceList.map((r: any) => [r.resourceId, r.buyPrice, r.checkNum])).toEqual([
      [w.spuA1, 5000, 5],
      [w.spuB, null, 10],
    ]);
  });

  it('shows a merchant its own cards and resources only', async () => {
    const a = await ok(PROFIT, { cardModelId: w.m1 }, merchantA);
    expect(a).toMatchObject({
      totalActiveCardNum: 5,
      cardNoNum: 6,
      totalCheckNum: 6,
      oneTimes: 1,
      fiveTimes: 1,
      sixPlusTimes: 0,
    });
    expect(a.resourceList.map((r: any) => [r.resourceId, r.checkNum])).toEqual([[w.spuA1, 5]]);
    const b = await ok(PROFIT, { cardModelId: w.m1 }, merchantB);
    expect(b).toMatchObject({ totalActiveCardNum: 1, totalCheckNum: 7, sixPlusTimes: 1 });
    expect(b.resourceList.map((r: any) => [r.resourceId, r.checkNum])).toEqual([[w.spuB, 7]]);
  });

  it("refuses another merchant's card model (403) and an unknown one (404)", async () => {
    expect((await t.post(PROFIT, { cardModelId: w.m2 }, merchantA.token)).body.errcode).toBe(403);
    expect((await t.post(PROFIT, { cardModelId: w.m2 }, shopA1.token)).body.errcode).toBe(403);
    expect((await t.post(PROFIT, { cardModelId: 999_999_999 }, platform.token)).body.errcode).toBe(404);
  });
});
