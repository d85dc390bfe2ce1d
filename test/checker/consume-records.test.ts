import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShop } from '../helpers/factories.js';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { staffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { checkIn, createSpot, heldCard, HOUR, scopeReaders, verifierAt, wire, type Spot } from './checkin-fixtures.js';

/** The verifier's records (get, revoke), today's counts at a spot, and the failed-scan log (spec B 4.2, issue 9). */

const GET = '/app-api/checker/getCheckerConsumeRecord';
const DELETE = '/app-api/checker/deleteCheckerConsumeRecord';
const STAT = '/app-api/checker/cardCheckStat';
const FAILS = '/manage-api/checker/queryCheckFailPage';

let t: TestApp;
let spot: Spot;

beforeAll(async () => {
  t = await createTestApp();
  spot = await createSpot(t);
});
afterAll(() => t?.close());

async function checkedIn(at: Spot = spot, extra: Record<string, unknown> = {}) {
  const card = await heldCard(t.db, at.modelId, { active_time: new Date(Date.now() - 30 * 24 * HOUR) });
  const res = await checkIn(t, at.checker.token, { skuId: at.skuId, cardNumber: card.cardNumber, ...extra });
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return { card, record: res.body.data };
}

describe('getCheckerConsumeRecord', () => {
  it("answers the verifier's own record as check-in answered it, without the entries left", async () => {
    const { record } = await checkedIn();
    const res = await t.post(GET, { id: record.id }, spot.checker.token);
    const { checksLeftToday: _left, ...expected } = record;
    expect(res.body).toEqual({ errcode: 0, errmsg: 'success', data: expected });
  });

  it("shows a colleague's record at the same spot, refuses one elsewhere (403) and an unknown one (404)", async () => {
    const { record } = await checkedIn();
    const colleague = await verifierAt(t, { merchantId: spot.merchantId, skuId: spot.skuId });
    expect((await t.post(GET, { id: record.id }, colleague.token)).body.data.id).toBe(record.id);
    const stranger = await verifierAt(t, { merchantId: spot.merchantId, skuId: (await createSpot(t)).skuId });
    expect((await t.post(GET, { id: record.id }, stranger.token)).body).toEqual({
      errcode: 403,
      errmsg: 'the check was made at a scenic spot you do not check at',
    });
    expect((await t.post(GET, { id: 2_000_000_000 }, spot.checker.token)).body).toEqual({
      errcode: 404,
      errmsg: 'check record not found',
    });
  });

  it("refuses bad input with 400 and other channels' tokens with 401", async () => {
    expect((await t.post(GET, {}, spot.checker.token)).body).toMatchObject({
      errcode: 400,
      errmsg: expect.stringContaining('id is required'),
    });
    expect((await t.post(GET, { id: 'x' }, spot.checker.token)).body.errcode).toBe(400);
    expect((await t.post(GET, { id: 1 })).body.errcode).toBe(401);
    const staff = await staffSession(t, { kind: 'platform', permissions: ['*'] });
    expect((await t.post(GET, { id: 1 }, staff.token)).body.errcode).toBe(401);
  });
});

describe('deleteCheckerConsumeRecord', () => {
  it("revokes the verifier's own check of today, gives the entry back and logs the operation", async () => {
    const { card, record } = await checkedIn();
    const res = await t.post(DELETE, { id: record.id }, spot.checker.token);
    expect(res.body).toEqual({ errcode: 0, errmsg: 'success' });
    const row = await t.db
      .selectFrom('card_check')
      .select(['is_deleted', 'updated_by'])
      .where('id', '=', record.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ is_deleted: true, updated_by: spot.checker.id });
    expect((await t.post(GET, { id: record.id }, spot.checker.token)).body.data.isDeleted).toBe(true);
    const log = await t.db
      .selectFrom('operate_log')
      .select(['module', 'action', 'success'])
      .where('path', '=', DELETE)
      .where('biz_id', '=', String(record.id))
      .execute();
    expect(log).toEqual([{ module: '核销记录', action: '撤销核销', success: true }]);
    // The entry is back: the card passes again today, once.
    const again = await checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: card.cardNumber });
    expect(again.body.data.checksLeftToday).toBe(0);
    expect(
      (await checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: card.cardNumber })).body.errcode,
    ).toBe(1_013_000_007);
    // A revoked record cannot be revoked again.
    expect((await t.post(DELETE, { id: record.id }, spot.checker.token)).body).toEqual({
      errcode: 404,
      errmsg: 'check record not found',
    });
  });

  it("refuses another verifier's record (1_013_000_014) and a record of an earlier day (1_013_000_015)", async () => {
    const { record } = await checkedIn();
    const colleague = await verifierAt(t, { merchantId: spot.merchantId, skuId: spot.skuId });
    expect((await t.post(DELETE, { id: record.id }, colleague.token)).body).toEqual({
      errcode: 1_013_000_014,
      errmsg: 'Only the verifier who made a check can revoke it.',
    });
    const yesterday = new Date(Date.now() - 24 * HOUR);
    const { record: old } = await checkedIn(spot, { checkTime: wire(yesterday) });
    expect((await t.post(DELETE, { id: old.id }, spot.checker.token)).body).toEqual({
      errcode: 1_013_000_015,
      errmsg: 'Only checks of today can be revoked.',
    });
    expect((await t.post(DELETE, { id: 2_000_000_000 }, spot.checker.token)).body.errcode).toBe(404);
    const rows = await t.db
      .selectFrom('card_check')
      .select('is_deleted')
      .where('id', 'in', [record.id, old.id])
      .execute();
    expect(rows.every((r) => !r.is_deleted)).toBe(true);
  });

  it('two simultaneous revocations give the entries back once', async () => {
    const three = await createSpot(t, { dailyLimit: 3 });
    const { card, record } = await checkedIn(three, { consumeNum: 2 });
    const answers = await Promise.all([1, 2, 3].map(() => t.post(DELETE, { id: record.id }, three.checker.token)));
    expect(answers.map((a) => a.body.errcode).sort()).toEqual([0, 404, 404]);
    const counter = await t.db
      .selectFrom('card_check_day_count')
      .select('used')
      .where('card_id', '=', card.cardId)
      .executeTakeFirstOrThrow();
    expect(counter.used).toBe(0);
  });
});

describe('cardCheckStat', () => {
  it("counts today's people, checks and the caller's checks at the spot, by GET and by POST", async () => {
    const three = await createSpot(t, { dailyLimit: 3 });
    const colleague = await verifierAt(t, { merchantId: three.merchantId, skuId: three.skuId });
    const a = await heldCard(t.db, three.modelId, { active_time: new Date(Date.now() - 30 * 24 * HOUR) });
    const b = await heldCard(t.db, three.modelId);
    for (const [who, card] of [
      [three.checker, a],
      [three.checker, a],
      [colleague, b],
    ] as const) {
      expect((await checkIn(t, who.token, { skuId: three.skuId, cardNumber: card.cardNumber })).body.errcode).toBe(0);
    }
    // Not counted: a revoked check, and yesterday's offline scan.
    const revoked = await checkIn(t, colleague.token, { skuId: three.skuId, cardNumber: b.cardNumber });
    await t.post(DELETE, { id: revoked.body.data.id }, colleague.token);
    await checkIn(t, three.checker.token, {
      skuId: three.skuId,
      cardNumber: a.cardNumber,
      checkTime: wire(new Date(Date.now() - 25 * HOUR)),
    });

    const post = await t.post(STAT, { skuId: String(three.skuId) }, three.checker.token);
    expect(post.body).toEqual({
      errcode: 0,
      errmsg: 'success',
      data: { dayCheckPersonNum: 2, dayCardCheckCnt: 3, checkerCardCheckCnt: 2 },
    });
    const get = await t.call('GET', `${STAT}?skuId=${three.skuId}`, { token: colleague.token });
    expect(get.body.data).toEqual({ dayCheckPersonNum: 2, dayCardCheckCnt: 3, checkerCardCheckCnt: 1 });
  });

  it('refuses a spot the verifier does not check at, a missing skuId, and no token', async () => {
    const elsewhere = await createSpot(t);
    expect((await t.post(STAT, { skuId: elsewhere.skuId }, spot.checker.token)).body.errcode).toBe(1_013_000_006);
    expect((await t.post(STAT, {}, spot.checker.token)).body).toMatchObject({
      errcode: 400,
      errmsg: expect.stringContaining('skuId'),
    });
    expect((await t.call('GET', `${STAT}?skuId=abc`, { token: spot.checker.token })).body.errcode).toBe(400);
    expect((await t.post(STAT, { skuId: spot.skuId })).body.errcode).toBe(401);
  });
});

describe('queryCheckFailPage', () => {
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: FAILS,
    permission: 'checker:read',
    validBody: () => ({}),
    badInputs: [
      { body: () => ({ pageSize: 1.5 }), field: 'pageSize' },
      { body: () => ({ checkTimeRange: ['2026-01-02', '2026-01-01'] }), field: 'checkTimeRange' },
      { body: () => ({ checkTimeRange: ['2026-01-01'] }), field: 'checkTimeRange' },
      { body: () => ({ skuId: 'x' }), field: 'skuId' },
    ],
  });

  it("pages refused scans by scope: platform all, a merchant its spots, a shop its shop, never another merchant's", async () => {
    const a = await createSpot(t);
    const b = await createSpot(t);
    const refusedA = await checkIn(t, a.checker.token, { skuId: a.skuId, cardNumber: 'UNKNOWN-A' });
    await checkIn(t, a.checker.token, {
      skuId: a.skuId,
      cardNumber: (await heldCard(t.db, a.modelId, { status: 3 })).cardNumber,
    });
    await checkIn(t, b.checker.token, { skuId: b.skuId, cardNumber: 'UNKNOWN-B' });
    expect(refusedA.body.errcode).toBe(1_013_000_001);

    const page = async (who: { token: string }, body: Record<string, unknown> = {}) => {
      const res = await t.post(FAILS, { pageSize: 50, ...body }, who.token);
      expect(res.body.errcode, res.body.errmsg).toBe(0);
      return res.body.data as { list: Array<Record<string, unknown>>; total: number };
    };
    const { merchant: merchantA, shop: shopA, otherShop, platform } = await scopeReaders(t, a);

    const mine = await page(merchantA);
    expect(mine.total).toBe(2);
    expect(mine.list[0]).toEqual({
      id: expect.any(Number),
      checkerId: a.checker.id,
      checkerName: a.checker.name,
      skuId: a.skuId,
      skuName: expect.stringMatching(/^Lake entry/),
      entranceId: null,
      entranceName: null,
      cardId: expect.any(Number),
      cardNumber: expect.any(String),
      idType: null,
      idNo: expect.any(String),
      facePhoto: null,
      checkType: 1,
      consumeNum: 1,
      checkTime: expect.stringMatching(/^\d{4}-/),
      errcode: 1_013_000_003,
      reason: 'This card has been disabled.',
      nonce: null,
      createdTime: expect.stringMatching(/^\d{4}-/),
    });
    expect(mine.list[1]).toMatchObject({ cardNumber: 'UNKNOWN-A', cardId: null, errcode: 1_013_000_001 });
    expect((await page(shopA)).total).toBe(2);
    expect((await page(otherShop)).total).toBe(0);
    const all = await page(platform, { checkerId: b.checker.id });
    expect(all.list.map((f) => f.cardNumber)).toEqual(['UNKNOWN-B']);
    expect((await page(merchantA, { checkerId: b.checker.id })).total).toBe(0);
    expect((await page(merchantA, { errcode: 1_013_000_001 })).list.map((f) => f.cardNumber)).toEqual(['UNKNOWN-A']);
    expect((await page(merchantA, { keywords: 'disabled' })).total).toBe(1);
    const today = wire(new Date()).slice(0, 10);
    expect((await page(merchantA, { checkTimeRange: [today, today] })).total).toBe(2);
    expect((await page(merchantA, { checkTimeRange: ['2020-01-01', '2020-01-02'] })).total).toBe(0);
    // A range of any length is answered (issue 36): the page bounds what is read.
    expect(
      (await page(merchantA, { checkTimeRange: ['2020-01-01', `${Number(today.slice(0, 4)) + 5}-12-31`] })).total,
    ).toBe(2);
  });

  it("files every refusal at a known SKU under the spot's merchant and shop, even those judged before the post; an unknown SKU under the verifier's", async () => {
    const at = await createSpot(t);
    // A verifier of another shop of the same merchant, posted at the spot; and one of another merchant, not posted there.
    const visitorShopId = await createShop(t.db, { merchant_id: at.merchantId });
    const visitor = await verifierAt(t, { merchantId: at.merchantId, shopId: visitorShopId, skuId: at.skuId });
    const stranger = await createSpot(t);
    const card = await heldCard(t.db, at.modelId, { active_time: new Date(Date.now() - 30 * 24 * HOUR) });
    const codes = [
      await checkIn(t, visitor.token, {
        skuId: at.skuId,
        cardNumber: card.cardNumber,
        checkTime: wire(new Date(Date.now() - 73 * HOUR)),
      }),
      await checkIn(t, visitor.token, {
        skuId: at.skuId,
        cardNumber: card.cardNumber,
        checkTime: wire(new Date(Date.now() + 10 * 60_000)),
      }),
      await checkIn(t, stranger.checker.token, { skuId: at.skuId, cardNumber: card.cardNumber }),
      await checkIn(t, stranger.checker.token, { skuId: 987_654_321, cardNumber: card.cardNumber }),
    ].map((r) => r.body.errcode);
    expect(codes).toEqual([1_013_000_011, 1_013_000_012, 1_013_000_006, 1_013_000_006]);
    // A scan that passes is unaffected: the visitor checks the card in at the spot.
    expect((await checkIn(t, visitor.token, { skuId: at.skuId, cardNumber: card.cardNumber })).body.errcode).toBe(0);

    const page = async (who: { token: string }, body: Record<string, unknown> = {}) => {
      const res = await t.post(FAILS, { pageSize: 50, ...body }, who.token);
      expect(res.body.errcode, res.body.errmsg).toBe(0);
      return (res.body.data as { list: Array<{ errcode: number; checkerId: number; skuId: number }> }).list;
    };
    const spotShop = await staffSession(t, { kind: 'shop', shopId: at.shopId, permissions: ['checker:read'] });
    const visitorShop = await staffSession(t, { kind: 'shop', shopId: visitorShopId, permissions: ['checker:read'] });
    const spotMerchant = await staffSession(t, {
      kind: 'merchant',
      merchantId: at.merchantId,
      permissions: ['checker:read'],
    });
    const strangerMerchant = await staffSession(t, {
      kind: 'merchant',
      merchantId: stranger.merchantId,
      permissions: ['checker:read'],
    });
    const strangerShop = await staffSession(t, {
      kind: 'shop',
      shopId: stranger.shopId,
      permissions: ['checker:read'],
    });

    const atSpot = [1_013_000_006, 1_013_000_012, 1_013_000_011];
    expect((await page(spotShop)).map((f) => f.errcode)).toEqual(atSpot);
    expect((await page(spotMerchant)).map((f) => f.errcode)).toEqual(atSpot);
    expect(await page(visitorShop)).toEqual([]);
    // The other merchant sees its verifier's scan at an unknown SKU, not the one at this merchant's spot.
    for (const who of [strangerMerchant, strangerShop]) {
      expect((await page(who)).map((f) => [f.errcode, f.skuId])).toEqual([[1_013_000_006, 987_654_321]]);
    }
    const rows = await t.db
      .selectFrom('card_check_fail')
      .select(['errcode', 'merchant_id', 'shop_id'])
      .where('card_number', '=', card.cardNumber)
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { errcode: 1_013_000_011, merchant_id: at.merchantId, shop_id: at.shopId },
      { errcode: 1_013_000_012, merchant_id: at.merchantId, shop_id: at.shopId },
      { errcode: 1_013_000_006, merchant_id: at.merchantId, shop_id: at.shopId },
      { errcode: 1_013_000_006, merchant_id: stranger.merchantId, shop_id: stranger.shopId },
    ]);
  });
});
