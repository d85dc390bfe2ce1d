import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldCheckRollup } from '../../src/modules/statistics/check-rollup.js';
import { formatDateTime } from '../../src/platform/time.js';
import { createCard, createCardModel, createMerchant, createShop, createSku, createSpu } from '../helpers/factories.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { sheetRows } from './stat-fixtures.js';

/**
 * Statistics over ranges of any length (the spec sets no bound): a daily series of three and a half
 * years paged through, a monthly one of thirteen, and the home figures over years and over the whole
 * calendar, each equal to figures counted from the data set's own description below; and `[]` for a
 * date range, which counts as absent (docs/adr/0014-one-input-guard-for-every-route.md).
 */
const M = '/manage-api/statistics';
const PROFIT = '/manage-api/profitAccounting/cardModel';
const OPEN_MODEL = '/open-api/statistics/statCardModel';
const READ = 'statistics:read';
const DAY = 86_400_000;
const HOUR = 3_600_000;

/** Card model L's activation days: every 37 days from 2023-01-03 10:00 (UTC+8), the last on 2026-06-14. */
const FIRST = Date.parse('2023-01-03T10:00:00+08:00');
const DAYS = 35;
const PRICE_CHANGE = Date.parse('2024-07-01T00:00:00+08:00');
const OLD_PRICE = 20000;
const NEW_PRICE = 30000;
const YEARS = ['2023-01-01', '2026-06-30'];

interface LCard {
  id: number;
  day: number;
  shop: 'L1' | 'L2';
  active: number;
  donated: boolean;
  status: number;
}
interface LCheck {
  time: number;
  consume: number;
  card: LCard;
}

let t: TestApp;
let platform: StaffSession;
let merchantL: StaffSession;
let shopL2: StaffSession;
let modelL: number;
let modelN: number;
let shopL1: number;
let shopL2Id: number;
const lCards: LCard[] = [];
const lChecks: LCheck[] = [];

const text = (ms: number) => formatDateTime(new Date(ms))!;
/** As the service reads a range: a bare end date covers its whole day, an end with a time ends there. */
const inRange = (ms: number, [from, to]: string[]) =>
  ms >= Date.parse(`${from.length === 10 ? `${from}T00:00:00` : from.replace(' ', 'T')}+08:00`) &&
  ms <= Date.parse(`${to.length === 10 ? `${to}T23:59:59.999` : to.replace(' ', 'T')}+08:00`);

beforeAll(async () => {
  t = await createTestApp();
  const db = t.db;
  const merchant = await createMerchant(db);
  shopL1 = await createShop(db, { merchant_id: merchant });
  shopL2Id = await createShop(db, { merchant_id: merchant });
  const spu = await createSpu(db, { shop_id: shopL1 });
  const sku = await createSku(db, { goods_id: spu });
  modelL = await createCardModel(db, { price: NEW_PRICE });
  await db
    .insertInto('card_model_price_history')
    .values([
      {
        card_model_id: modelL,
        price: OLD_PRICE,
        validity_months: 12,
        valid_from: new Date('2022-01-01T00:00:00+08:00'),
        valid_to: new Date(PRICE_CHANGE),
      },
      {
        card_model_id: modelL,
        price: NEW_PRICE,
        validity_months: 12,
        valid_from: new Date(PRICE_CHANGE),
        valid_to: null,
      },
    ])
    .execute();
  const future = new Date(Date.now() + 365 * DAY);

  // Each day: one card of shop L1 (two every sixth day), donated every fifth day, bound on even days;
  // every fourth day also a disabled card of shop L2 an hour later.
  for (let day = 0; day < DAYS; day++) {
    const active = FIRST + day * 37 * DAY;
    const l1 = { day, shop: 'L1' as const, active, donated: day % 5 === 0, status: day % 2 === 0 ? 2 : 1 };
    for (let k = 0; k < (day % 6 === 0 ? 2 : 1); k++) {
      const id = await createCard(db, {
        card_model_id: modelL,
        merchant_id: merchant,
        shop_id: shopL1,
        status: l1.status,
        is_donation: l1.donated,
        active_time: new Date(active),
        expire_time: future,
      });
      lCards.push({ id, ...l1 });
    }
    if (day % 4 === 0) {
      const l2 = { day, shop: 'L2' as const, active: active + HOUR, donated: false, status: 3 };
      const id = await createCard(db, {
        card_model_id: modelL,
        merchant_id: merchant,
        shop_id: shopL2Id,
        status: 3,
        active_time: new Date(l2.active),
        expire_time: future,
      });
      lCards.push({ id, ...l2 });
    }
  }

  const check = async (card: LCard, time: number, consume: number, revoked = false) => {
    await db
      .insertInto('card_check')
      .values({
        card_id: card.id,
        card_model_id: modelL,
        sku_id: sku,
        resource_id: spu,
        check_time: new Date(time),
        check_date: text(time).slice(0, 10),
        consume_num: consume,
        is_deleted: revoked,
      })
      .execute();
    if (!revoked) lChecks.push({ time, consume, card });
  };
  // Checks of the first card of each day: 1–3 of them on the following days, a revoked one every
  // seventh day; folded into the roll-up, then a few more beyond the mark (read live).
  const firsts = lCards.filter((c, i) => i === 0 || lCards[i - 1].day !== c.day);
  for (const c of firsts) {
    for (let k = 1; k <= (c.day % 3) + 1; k++) await check(c, c.active + k * DAY + HOUR, (k % 2) + 1);
    if (c.day % 7 === 0) await check(c, c.active + 2 * HOUR, 4, true);
  }
  await foldCheckRollup(db);
  for (const c of firsts.filter((f) => f.day % 9 === 0)) await check(c, c.active + 10 * DAY, 3);

  // Merchant N's card model N: one card sold and checked this month (what an absent range covers).
  const merchantN = await createMerchant(db);
  const shopN = await createShop(db, { merchant_id: merchantN });
  const spuN = await createSpu(db, { shop_id: shopN });
  const skuN = await createSku(db, { goods_id: spuN });
  modelN = await createCardModel(db, { price: 9900, merchant_id: merchantN });
  const now = new Date();
  const cardN = await createCard(db, {
    card_model_id: modelN,
    merchant_id: merchantN,
    shop_id: shopN,
    status: 2,
    active_time: now,
    expire_time: future,
  });
  await db
    .insertInto('card_check')
    .values({
      card_id: cardN,
      card_model_id: modelN,
      sku_id: skuN,
      resource_id: spuN,
      check_time: now,
      check_date: text(now.getTime()).slice(0, 10),
      consume_num: 1,
    })
    .execute();

  platform = await staffSession(t, { kind: 'platform', permissions: [READ] });
  merchantL = await staffSession(t, { kind: 'merchant', merchantId: merchant, permissions: [READ] });
  shopL2 = await staffSession(t, { kind: 'shop', shopId: shopL2Id, permissions: [READ] });
});
afterAll(() => t?.close());

async function ok(path: string, body: unknown, who: StaffSession = platform) {
  const res = await t.post(path, body, who.token);
  expect(res.body.errcode, `${path} ${JSON.stringify(body)}: ${res.body.errmsg}`).toBe(0);
  return res.body.data;
}

/** Every page of statCardModel, in order, pageSize rows at a time. */
async function allPages(body: Record<string, unknown>, pageSize: number) {
  const rows: any[] = [];
  let total = -1;
  for (let pageNum = 1; pageNum < 1000; pageNum++) {
    const page = await ok(OPEN_MODEL, { ...body, pageNum, pageSize });
    if (total === -1) total = page.total;
    expect(page.total).toBe(total);
    if (page.list.length === 0) break;
    expect(page.list.length).toBeLessThanOrEqual(pageSize);
    rows.push(...page.list);
  }
  return { rows, total };
}

/** statCardModel's rows expected from the data set: one group per (period, shop, donation), newest first. */
function expectedSeries(range: string[], period: (ms: number) => string) {
  const groups = new Map<string, { period: string; shop: number; donated: boolean; cards: LCard[] }>();
  for (const c of lCards.filter((x) => inRange(x.active, range))) {
    const key = `${c.day}|${c.shop}|${c.donated}`;
    const g = groups.get(key) ?? {
      period: period(c.active),
      shop: c.shop === 'L1' ? shopL1 : shopL2Id,
      donated: c.donated,
      cards: [],
    };
    g.cards.push(c);
    groups.set(key, g);
  }
  return [...groups.values()]
    .sort((a, b) => b.period.localeCompare(a.period) || a.shop - b.shop || Number(a.donated) - Number(b.donated))
    .map((g) => ({
      cardModelId: modelL,
      businessId: g.shop,
      isDonation: g.donated ? 1 : 0,
      dateRange: g.period,
      activeCount: g.cards.length,
      noBindCount: g.cards.filter((c) => c.status === 1).length,
      bindCount: g.cards.filter((c) => c.status === 2).length,
      disableCount: g.cards.filter((c) => c.status === 3).length,
      expireCount: 0,
    }));
}
const pick = (r: any) => ({
  cardModelId: r.cardModelId,
  businessId: r.businessId,
  isDonation: r.isDonation,
  dateRange: r.dateRange,
  activeCount: r.activeCount,
  noBindCount: r.noBindCount,
  bindCount: r.bindCount,
  disableCount: r.disableCount,
  expireCount: r.expireCount,
});

const entries = (range: string[]) => lChecks.filter((k) => inRange(k.time, range)).reduce((s, k) => s + k.consume, 0);
const cohortEntries = (range: string[]) =>
  lChecks.filter((k) => inRange(k.card.active, range)).reduce((s, k) => s + k.consume, 0);
const sold = (range: string[]) => lCards.filter((c) => inRange(c.active, range));
const amount = (cards: LCard[]) =>
  cards.filter((c) => !c.donated).reduce((s, c) => s + (c.active < PRICE_CHANGE ? OLD_PRICE : NEW_PRICE), 0);

describe('statCardModel over long ranges', () => {
  it('pages through a daily series of three and a half years, every group exact', async () => {
    const expected = expectedSeries(YEARS, (ms) => text(ms).slice(0, 10));
    expect(expected.length).toBeGreaterThan(40);
    const { rows, total } = await allPages({ activeTimeType: 1, cardModelId: modelL, activeTimeRange: YEARS }, 7);
    expect(total).toBe(expected.length);
    expect(rows.map(pick)).toEqual(expected);
    expect(rows.reduce((s, r) => s + r.activeCount, 0)).toBe(lCards.length);
  });

  it('cuts a long daily series at the times given, inside its first and last day', async () => {
    // From just after day 0's L1 cards (10:00) to just before day 34's (10:00): day 0 keeps its L2 card (11:00).
    const range = [text(FIRST + 1000), text(FIRST + 34 * 37 * DAY - 1000)];
    const expected = expectedSeries(range, (ms) => text(ms).slice(0, 10));
    const { rows, total } = await allPages({ cardModelId: modelL, activeTimeRange: range }, 50);
    expect(total).toBe(expected.length);
    expect(rows.map(pick)).toEqual(expected);
    expect(rows.at(-1)).toMatchObject({ dateRange: '2023-01-03', businessId: shopL2Id, disableCount: 1 });
    expect(rows[0].dateRange).toBe(text(FIRST + 33 * 37 * DAY).slice(0, 10));
  });

  it('groups thirteen years by month, and the whole calendar for a merchant', async () => {
    const months = ['2014-01-01', '2026-12-31'];
    const expected = expectedSeries(months, (ms) => text(ms).slice(0, 7));
    const { rows, total } = await allPages({ activeTimeType: 2, cardModelId: modelL, activeTimeRange: months }, 20);
    expect(total).toBe(expected.length);
    expect(rows.map(pick)).toEqual(expected);
    const widest = await ok(
      OPEN_MODEL,
      { activeTimeType: 2, activeTimeRange: ['1900-01-01', '9999-12-31'], pageSize: 200 },
      merchantL,
    );
    expect(widest.total).toBe(expected.length);
    expect(widest.list.reduce((s: number, r: any) => s + r.activeCount, 0)).toBe(lCards.length);
  });
});

describe('home figures over several years', () => {
  it('statHomeCardCheckNum sums every entry of the years, folded or live, partial days at the ends included', async () => {
    expect(await ok(`${M}/statHomeCardCheckNum`, { datePair: YEARS })).toEqual([
      { cardModelId: modelL, cardModelName: expect.any(String), checkNum: entries(YEARS) },
    ]);
    const edges = ['2024-02-10 12:00:00', '2025-08-20 09:30:00'];
    expect(entries(edges)).toBeGreaterThan(0);
    expect(entries(edges)).toBeLessThan(entries(YEARS));
    expect(await ok(`${M}/statHomeCardCheckNum`, { datePair: edges })).toEqual([
      { cardModelId: modelL, cardModelName: expect.any(String), checkNum: entries(edges) },
    ]);
    const all = ['1900-01-01', '9999-12-31'];
    expect(await ok(`${M}/statHomeCardCheckNum`, { datePair: all }, merchantL)).toEqual([
      { cardModelId: modelL, cardModelName: expect.any(String), checkNum: entries(all) },
    ]);
    expect(await ok(`${M}/statHomeCardCheckNum`, { datePair: all }, shopL2)).toEqual([]);
  });

  it('equals the checks counted straight from card_check over the years', async () => {
    const { rows } = await sql<{ n: string }>`
      select sum(consume_num) as n from card_check
      where card_model_id = ${modelL} and not is_deleted and check_time between '2023-01-01 00:00:00+08' and '2026-06-30 23:59:59.999+08'`.execute(
      t.db,
    );
    expect(Number(rows[0].n)).toBe(entries(YEARS));
  });

  it('statHomeCardSalesAmount prices every card sold in the years at its activation', async () => {
    const cards = sold(YEARS);
    expect(await ok(`${M}/statHomeCardSalesAmount`, { datePair: YEARS })).toEqual([
      {
        cardModelId: modelL,
        cardModelName: expect.any(String),
        salesNum: lCards.length,
        donationNum: cards.filter((c) => c.donated).length,
        salesAmount: amount(cards),
      },
    ]);
    const across = ['2024-01-01', '2025-12-31'];
    const some = sold(across);
    expect(new Set(some.map((c) => c.active < PRICE_CHANGE)).size).toBe(2);
    expect(await ok(`${M}/statHomeCardSalesAmount`, { datePair: across }, merchantL)).toEqual([
      {
        cardModelId: modelL,
        cardModelName: expect.any(String),
        salesNum: some.length,
        donationNum: some.filter((c) => c.donated).length,
        salesAmount: amount(some),
      },
    ]);
  });
});

describe('the other statistics over several years', () => {
  it("statCardIssue and its export count the years' activations (POST and GET)", async () => {
    expect(await ok(`${M}/statCardIssue`, { activeTimeRange: YEARS })).toEqual([
      { orderNo: 1, cardModelId: modelL, cardModelName: expect.any(String), activeNum: lCards.length },
    ]);
    const res = await t.app.inject({
      method: 'GET',
      url: `${M}/exportStatCardIssue?activeTimeRange=${YEARS[0]}&activeTimeRange=${YEARS[1]}`,
      headers: { authorization: `Bearer ${platform.token}` },
    });
    expect(res.statusCode).toBe(200);
    const rows = await sheet(res.rawPayload);
    expect(rows.slice(1)).toEqual([
      [1, modelL, expect.any(String), lCards.length],
      ['合计', undefined, undefined, lCards.length],
    ]);
  });

  it('profitAccounting accounts a cohort activated over years', async () => {
    const p = await ok(PROFIT, { cardModelId: modelL, activeTimeRange: YEARS });
    expect(p).toMatchObject({
      totalActiveCardNum: lCards.length,
      totalCheckNum: cohortEntries(YEARS),
      donationNum: lCards.filter((c) => c.donated).length,
    });
    const across = ['2024-01-01', '2025-12-31'];
    const q = await ok(PROFIT, { cardModelId: modelL, activeTimeRange: across });
    expect(q).toMatchObject({ totalActiveCardNum: sold(across).length, totalCheckNum: cohortEntries(across) });
  });
});

const sheet = sheetRows;

describe('[] for a date range', () => {
  // A filter's [] is a Java client leaving it unset (docs/adr/0014-one-input-guard-for-every-route.md);
  // the range that is the subject of a figure (statCardIssue and its export, statCardStat,
  // the home figures) refuses [] naming the field, as the contract issue asks (docs/adr/0074-statistics-answer-ranges-of-any-length.md).
  // Absent and null are no range, everywhere.
  it('is no filter where the range filters a page (statCardModel, profitAccounting), as absent and null are', async () => {
    for (const [path, field, base] of [
      [OPEN_MODEL, 'activeTimeRange', { cardModelId: modelL, pageSize: 200 }],
      [PROFIT, 'activeTimeRange', { cardModelId: modelL }],
    ] as const) {
      const absent = await ok(path, base);
      expect(await ok(path, { ...base, [field]: [] }), path).toEqual(absent);
      expect(await ok(path, { ...base, [field]: null }), path).toEqual(absent);
    }
  });

  it("is refused naming the field where the range is the figure's subject; null is absent there", async () => {
    for (const [path, field] of [
      [`${M}/statCardIssue`, 'activeTimeRange'],
      [`${M}/statCardStat`, 'activeTimeRange'],
      [`${M}/exportStatCardIssue`, 'activeTimeRange'],
      [`${M}/statHomeCardCheckNum`, 'datePair'],
      [`${M}/statHomeCardSalesAmount`, 'datePair'],
    ] as const) {
      const refused = await t.post(path, { [field]: [] }, platform.token);
      expect(refused.body, path).toEqual({ errcode: 400, errmsg: `${field} is invalid: must hold exactly 2 items` });
      if (!path.endsWith('exportStatCardIssue'))
        expect(await ok(path, { [field]: null }), path).toEqual(await ok(path, {}));
    }
    // Absent datePair is this month: model N's sale and check of today.
    expect(await ok(`${M}/statHomeCardCheckNum`, { datePair: null })).toEqual([
      { cardModelId: modelN, cardModelName: expect.any(String), checkNum: 1 },
    ]);
    expect(await ok(`${M}/statCardIssue`, { activeTimeRange: null })).toEqual([
      { orderNo: 1, cardModelId: modelL, cardModelName: expect.any(String), activeNum: lCards.length },
      { orderNo: 2, cardModelId: modelN, cardModelName: expect.any(String), activeNum: 1 },
    ]);
  });

  it('on exportStatCardIssue: [] posted is refused; a GET with ?activeTimeRange= (an empty value) is no range', async () => {
    const get = (query: string) =>
      t.app.inject({
        method: 'GET',
        url: `${M}/exportStatCardIssue${query}`,
        headers: { authorization: `Bearer ${platform.token}` },
      });
    const whole = await sheet((await get('')).rawPayload);
    expect(whole.at(-1)).toEqual(['合计', undefined, undefined, lCards.length + 1]);
    expect(await sheet((await get('?activeTimeRange=')).rawPayload)).toEqual(whole);
    const posted = await t.app.inject({
      method: 'POST',
      url: `${M}/exportStatCardIssue`,
      payload: { activeTimeRange: [] },
      headers: { authorization: `Bearer ${platform.token}` },
    });
    expect(posted.json()).toEqual({ errcode: 400, errmsg: 'activeTimeRange is invalid: must hold exactly 2 items' });
  });
});
