import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniq } from '../helpers/factories.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import {
  CHECK_IN,
  checkIn,
  createSpot,
  heldCard,
  HOUR,
  verifierAt,
  wire,
  yesterdayAt,
  type Spot,
} from './checkin-fixtures.js';

/** Re-sent scans (nonce) and offline scans (checkTime) of addCheckerConsumeRecord (issue 9). */

let t: TestApp;
let spot: Spot;
let three: Spot;

beforeAll(async () => {
  t = await createTestApp();
  spot = await createSpot(t);
  three = await createSpot(t, { dailyLimit: 3 });
});
afterAll(() => t?.close());

const recordsOf = (cardId: number) =>
  t.db.selectFrom('card_check').selectAll().where('card_id', '=', cardId).orderBy('id').execute();
const nonce = () => `scan-${Math.random().toString(36).slice(2)}`;

describe('a nonce makes a re-sent scan idempotent', () => {
  it('answers the first answer again and writes no second record', async () => {
    const card = await heldCard(t.db, three.modelId);
    const body = { skuId: three.skuId, entranceId: three.gate2, cardNumber: card.cardNumber, nonce: nonce() };
    const first = await checkIn(t, three.checker.token, body);
    expect(first.body.errcode, first.body.errmsg).toBe(0);
    expect(first.body.data.checksLeftToday).toBe(2);
    // Another scan of the card in between changes what is left now, not what the first send was told.
    expect(
      (await checkIn(t, three.checker.token, { skuId: three.skuId, cardNumber: card.cardNumber })).body.data
        .checksLeftToday,
    ).toBe(1);
    const again = await checkIn(t, three.checker.token, body);
    expect(again.body).toEqual(first.body);
    expect(await recordsOf(card.cardId)).toHaveLength(2);
    const logs = await t.db
      .selectFrom('operate_log')
      .select(['biz_id', 'success'])
      .where('path', '=', CHECK_IN)
      .where('biz_id', '=', String(first.body.data.id))
      .execute();
    expect(logs).toEqual([
      { biz_id: String(first.body.data.id), success: true },
      { biz_id: String(first.body.data.id), success: true },
    ]);
  });

  it('answers a refused scan with the same refusal, logged once, even when the card has changed since', async () => {
    const card = await heldCard(t.db, spot.modelId, { status: 3 });
    const body = { skuId: spot.skuId, cardNumber: card.cardNumber, nonce: nonce() };
    const first = await checkIn(t, spot.checker.token, body);
    expect(first.body.errcode).toBe(1_013_000_003);
    await t.db.updateTable('card').set({ status: 2 }).where('id', '=', card.cardId).execute();
    expect((await checkIn(t, spot.checker.token, body)).body).toEqual(first.body);
    const fails = await t.db.selectFrom('card_check_fail').select('nonce').where('nonce', '=', body.nonce).execute();
    expect(fails).toHaveLength(1);
    expect(await recordsOf(card.cardId)).toHaveLength(0);
  });

  it('answers a refused nonce again only for the same identifiers: another card or ID number with it is 1_013_000_013', async () => {
    const reused = { errcode: 1_013_000_013, errmsg: 'This scan id (nonce) was already used for another scan.' };
    const n = nonce();
    const unknown = { skuId: spot.skuId, cardNumber: uniq('NOPE').slice(0, 20), nonce: n };
    const refused = await checkIn(t, spot.checker.token, unknown);
    expect(refused.body.errcode).toBe(1_013_000_001);
    expect((await checkIn(t, spot.checker.token, unknown)).body).toEqual(refused.body);
    const good = await heldCard(t.db, spot.modelId);
    expect(
      (await checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: good.cardNumber, nonce: n })).body,
    ).toEqual(reused);
    expect((await checkIn(t, spot.checker.token, { skuId: spot.skuId, idNo: good.idNo, nonce: n })).body).toEqual(
      reused,
    );
    expect(await recordsOf(good.cardId)).toHaveLength(0);
    // The card was fine: with a nonce of its own it passes.
    expect(
      (await checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: good.cardNumber, nonce: nonce() })).body
        .errcode,
    ).toBe(0);

    // The same by ID number: the same person again is the same refusal, another person's number is not.
    const m = nonce();
    const nobody = { skuId: spot.skuId, idNo: uniq('9').slice(0, 18).toUpperCase(), nonce: m };
    const noCard = await checkIn(t, spot.checker.token, nobody);
    expect(noCard.body.errcode).toBe(1_013_000_008);
    expect((await checkIn(t, spot.checker.token, nobody)).body).toEqual(noCard.body);
    const someone = await heldCard(t.db, spot.modelId);
    expect((await checkIn(t, spot.checker.token, { skuId: spot.skuId, idNo: someone.idNo, nonce: m })).body).toEqual(
      reused,
    );
    expect(
      (await checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: someone.cardNumber, nonce: m })).body,
    ).toEqual(reused);
    expect(await recordsOf(someone.cardId)).toHaveLength(0);

    // A refusal of a known card is answered again through that card's holder, as a check is.
    const k = nonce();
    const disabled = await heldCard(t.db, spot.modelId, { status: 3 });
    const off = await checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: disabled.cardNumber, nonce: k });
    expect(off.body.errcode).toBe(1_013_000_003);
    expect((await checkIn(t, spot.checker.token, { skuId: spot.skuId, idNo: disabled.idNo, nonce: k })).body).toEqual(
      off.body,
    );
    const fails = await t.db.selectFrom('card_check_fail').select('nonce').where('nonce', 'in', [n, m, k]).execute();
    expect(fails).toHaveLength(3);
  });

  it('refuses a nonce re-used for another scan (another spot or card) with 1_013_000_013', async () => {
    const card = await heldCard(t.db, three.modelId);
    const n = nonce();
    expect(
      (await checkIn(t, three.checker.token, { skuId: three.skuId, cardNumber: card.cardNumber, nonce: n })).body
        .errcode,
    ).toBe(0);
    const other = await heldCard(t.db, three.modelId);
    const res = await checkIn(t, three.checker.token, { skuId: three.skuId, cardNumber: other.cardNumber, nonce: n });
    expect(res.body).toEqual({
      errcode: 1_013_000_013,
      errmsg: 'This scan id (nonce) was already used for another scan.',
    });
    expect(
      (await checkIn(t, three.checker.token, { skuId: spot.skuId, cardNumber: card.cardNumber, nonce: n })).body
        .errcode,
    ).toBe(1_013_000_013);
    expect(await recordsOf(other.cardId)).toHaveLength(0);
  });

  it("keeps nonces per verifier: another verifier's scan with the same nonce is its own", async () => {
    const colleague = await verifierAt(t, { merchantId: three.merchantId, shopId: three.shopId, skuId: three.skuId });
    const card = await heldCard(t.db, three.modelId);
    const n = nonce();
    const mine = await checkIn(t, three.checker.token, { skuId: three.skuId, cardNumber: card.cardNumber, nonce: n });
    const theirs = await checkIn(t, colleague.token, { skuId: three.skuId, cardNumber: card.cardNumber, nonce: n });
    expect(theirs.body.data.id).not.toBe(mine.body.data.id);
    expect(await recordsOf(card.cardId)).toHaveLength(2);
  });

  for (const [label, s] of [
    ['limit 1', () => spot],
    ['limit 3', () => three],
  ] as const) {
    it(`10 simultaneous sends of one scan (${label}) all answer the one record`, async () => {
      const at = s();
      const card = await heldCard(t.db, at.modelId);
      const body = { skuId: at.skuId, cardNumber: card.cardNumber, nonce: nonce() };
      const answers = await Promise.all(Array.from({ length: 10 }, () => checkIn(t, at.checker.token, body)));
      const ids = new Set(answers.map((a) => a.body.data?.id));
      expect(answers.map((a) => a.body.errcode)).toEqual(Array(10).fill(0));
      expect(ids.size).toBe(1);
      expect(await recordsOf(card.cardId)).toHaveLength(1);
    });
  }
});

describe('an offline scan is judged at its checkTime', () => {
  it("records the scan at its time and day, with that day's limit, apart from today's", async () => {
    const card = await heldCard(t.db, spot.modelId, { active_time: new Date(Date.now() - 30 * 24 * HOUR) });
    const morning = yesterdayAt(10);
    const first = await checkIn(t, spot.checker.token, {
      skuId: spot.skuId,
      cardNumber: card.cardNumber,
      checkTime: wire(morning),
    });
    expect(first.body.errcode, first.body.errmsg).toBe(0);
    expect(first.body.data).toMatchObject({ checkTime: wire(morning), checksLeftToday: 0 });
    const afternoon = await checkIn(t, spot.checker.token, {
      skuId: spot.skuId,
      cardNumber: card.cardNumber,
      checkTime: wire(yesterdayAt(15)),
    });
    expect(afternoon.body.errcode).toBe(1_013_000_007);
    const today = await checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: card.cardNumber });
    expect(today.body.errcode).toBe(0);
    const rows = await recordsOf(card.cardId);
    expect(rows.map((r) => r.check_date)).toEqual([wire(morning).slice(0, 10), wire(new Date()).slice(0, 10)]);
  });

  it('accepts a card that was valid then and has expired since, and refuses it online', async () => {
    const longAgo = new Date(Date.now() - 400 * 24 * HOUR);
    const justExpired = new Date(Date.now() - HOUR);
    for (const status of [2, 4]) {
      const card = await heldCard(t.db, spot.modelId, { status, active_time: longAgo, expire_time: justExpired });
      const offline = await checkIn(t, spot.checker.token, {
        skuId: spot.skuId,
        cardNumber: card.cardNumber,
        checkTime: wire(yesterdayAt(10)),
      });
      expect(offline.body.errcode, `status ${status}: ${offline.body.errmsg}`).toBe(0);
      const online = await checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: card.cardNumber });
      expect(online.body.errcode).toBe(1_013_000_004);
    }
  });

  it('refuses a card activated after the scan', async () => {
    const card = await heldCard(t.db, spot.modelId, { active_time: new Date(Date.now() - 60_000) });
    const res = await checkIn(t, spot.checker.token, {
      skuId: spot.skuId,
      cardNumber: card.cardNumber,
      checkTime: wire(yesterdayAt(10)),
    });
    expect(res.body.errcode).toBe(1_013_000_010);
  });

  it('refuses a scan more than 72 hours old and one from the future, and logs them', async () => {
    const card = await heldCard(t.db, spot.modelId, { active_time: new Date(Date.now() - 30 * 24 * HOUR) });
    const old = await checkIn(t, spot.checker.token, {
      skuId: spot.skuId,
      cardNumber: card.cardNumber,
      checkTime: wire(new Date(Date.now() - 73 * HOUR)),
    });
    expect(old.body).toEqual({
      errcode: 1_013_000_011,
      errmsg: 'This offline scan is more than 72 hours old and can no longer be accepted.',
    });
    const ahead = await checkIn(t, spot.checker.token, {
      skuId: spot.skuId,
      cardNumber: card.cardNumber,
      checkTime: wire(new Date(Date.now() + 10 * 60_000)),
    });
    expect(ahead.body).toEqual({
      errcode: 1_013_000_012,
      errmsg: 'The scan time is in the future. Please check the device clock.',
    });
    const fails = await t.db
      .selectFrom('card_check_fail')
      .select(['errcode', 'merchant_id'])
      .where('card_number', '=', card.cardNumber)
      .orderBy('id')
      .execute();
    expect(fails).toEqual([
      { errcode: 1_013_000_011, merchant_id: spot.merchantId },
      { errcode: 1_013_000_012, merchant_id: spot.merchantId },
    ]);
    expect(await recordsOf(card.cardId)).toHaveLength(0);
  });

  it("judges the verifier's post before the scan's time (docs/domain.md §4 step 1 first)", async () => {
    const card = await heldCard(t.db, three.modelId, { active_time: new Date(Date.now() - 30 * 24 * HOUR) });
    const old = await checkIn(t, spot.checker.token, {
      skuId: three.skuId,
      cardNumber: card.cardNumber,
      checkTime: wire(new Date(Date.now() - 73 * HOUR)),
    });
    expect(old.body.errcode).toBe(1_013_000_006);
    const ahead = await checkIn(t, spot.checker.token, {
      skuId: three.skuId,
      cardNumber: card.cardNumber,
      checkTime: wire(new Date(Date.now() + 10 * 60_000)),
    });
    expect(ahead.body.errcode).toBe(1_013_000_006);
  });

  it('takes a device clock a few seconds ahead as now', async () => {
    const card = await heldCard(t.db, spot.modelId);
    const before = Date.now();
    const res = await checkIn(t, spot.checker.token, {
      skuId: spot.skuId,
      cardNumber: card.cardNumber,
      checkTime: wire(new Date(Date.now() + 30_000)),
    });
    expect(res.body.errcode, res.body.errmsg).toBe(0);
    const [row] = await recordsOf(card.cardId);
    expect(row.check_time.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(row.check_time.getTime()).toBeLessThanOrEqual(Date.now());
  });
});
