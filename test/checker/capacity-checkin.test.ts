import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictKind } from '../../src/modules/checker/check-conflict.js';
import { checkInScan } from '../../src/modules/checker/checkin.repository.js';
import { pruneDayCounts } from '../../src/modules/checker/day-count-pruning.js';
import type { Db } from '../../src/platform/db/database.js';
import { dayText } from '../../src/platform/date-range.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { admittedCount, checkIn, createSpot, heldCard, HOUR, wire, type Spot } from './checkin-fixtures.js';

/**
 * Capacity at check-in (docs/domain.md §4.1, docs/adr/0105-exact-spot-capacity.md): a spot's day and
 * slot capacities refuse exactly under concurrency, together with the cards' daily limits; revocation
 * gives the admission back; a capacity set mid-day counts the admissions already made; the record
 * mode of an offline gate writes the check and its conflicts.
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const SPOT_FULL = 1_013_000_016;
const SLOT_FULL = 1_013_000_017;
const LIMIT = 1_013_000_007;

/** Sets a capacity the way setSpotCapacity stores it (its own tests are in capacity.test.ts). */
export async function setCapacity(
  db: Db,
  spot: Spot,
  daily: number | null,
  slots: { start: number; end: number; capacity: number }[] = [],
): Promise<void> {
  await db
    .insertInto('spot_capacity')
    .values({ sku_id: spot.skuId, merchant_id: spot.merchantId, shop_id: spot.shopId, daily_capacity: daily })
    .execute();
  if (slots.length > 0)
    await db
      .insertInto('spot_capacity_slot')
      .values(
        slots.map((s) => ({ sku_id: spot.skuId, start_minute: s.start, end_minute: s.end, capacity: s.capacity })),
      )
      .execute();
}

const livingAt = async (skuId: number) =>
  Number(
    (
      await t.db
        .selectFrom('card_check')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('sku_id', '=', skuId)
        .where('is_deleted', '=', false)
        .executeTakeFirstOrThrow()
    ).n,
  );

const counter = (skuId: number, slot = -1) => admittedCount(t.db, skuId, slot);

async function cards(spot: Spot, n: number) {
  return Promise.all(Array.from({ length: n }, () => heldCard(t.db, spot.modelId)));
}

describe('capacity at check-in', () => {
  it('40 concurrent check-ins of distinct cards at a spot of capacity 25: exactly 25 pass, 15 are refused', async () => {
    const spot = await createSpot(t);
    await setCapacity(t.db, spot, 25);
    const held = await cards(spot, 40);
    const answers = await Promise.all(
      held.map((c) => checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: c.cardNumber })),
    );
    const codes = answers.map((a) => a.body.errcode);
    expect(codes.filter((c) => c === 0)).toHaveLength(25);
    expect(codes.filter((c) => c === SPOT_FULL)).toHaveLength(15);
    const refused = answers.find((a) => a.body.errcode === SPOT_FULL)!;
    expect(refused.body.errmsg).toContain('25 visitors a day');
    expect(await livingAt(spot.skuId)).toBe(25);
    expect(await counter(spot.skuId)).toBe(25);
    // each refusal is logged like the others, and the refused cards' days are untouched
    const logged = await t.db
      .selectFrom('card_check_fail')
      .select('errcode')
      .where('sku_id', '=', spot.skuId)
      .execute();
    expect(logged.map((r) => r.errcode)).toEqual(Array(15).fill(SPOT_FULL));
    const used = await t.db
      .selectFrom('card_check_day_count')
      .select((eb) => eb.fn.sum<number>('used').as('n'))
      .where(
        'card_id',
        'in',
        held.map((c) => c.cardId),
      )
      .executeTakeFirstOrThrow();
    expect(Number(used.n)).toBe(25);
  });

  it("the slot holding the scan's time refuses over its capacity; other slots do not bind", async () => {
    const spot = await createSpot(t);
    const minute = new Date().getHours() * 60 + new Date().getMinutes();
    const other = minute < 720 ? { start: 1380, end: 1440, capacity: 1 } : { start: 0, end: 60, capacity: 1 };
    // the slot may end at 24:00; the current one holds now
    const start = Math.max(0, minute - 30);
    const end = Math.min(1440, minute + 30);
    await setCapacity(t.db, spot, null, [
      { start, end, capacity: 6 },
      ...(end <= other.start || other.end <= start ? [other] : []),
    ]);
    const held = await cards(spot, 15);
    const answers = await Promise.all(
      held.map((c) => checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: c.cardNumber })),
    );
    const codes = answers.map((a) => a.body.errcode);
    expect(codes.filter((c) => c === 0)).toHaveLength(6);
    expect(codes.filter((c) => c === SLOT_FULL)).toHaveLength(9);
    expect(await counter(spot.skuId, start)).toBe(6);
    // the day row is kept for a spot with slots only, and gave back what the slot refused
    expect(await counter(spot.skuId)).toBe(6);
    expect(await livingAt(spot.skuId)).toBe(6);
  });

  it('the day capacity refuses before the slot; consumeNum counts entries', async () => {
    const spot = await createSpot(t, { dailyLimit: 5 });
    await setCapacity(t.db, spot, 3, [{ start: 0, end: 1440, capacity: 3 }]);
    const [a, b] = await cards(spot, 2);
    expect(
      (await checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: a.cardNumber, consumeNum: 2 })).body
        .errcode,
    ).toBe(0);
    expect(
      (await checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: b.cardNumber, consumeNum: 2 })).body
        .errcode,
    ).toBe(SPOT_FULL);
    expect((await checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: b.cardNumber })).body.errcode).toBe(
      0,
    );
    expect(await counter(spot.skuId)).toBe(3);
    expect(await counter(spot.skuId, 0)).toBe(3);
  });

  it("a card over its daily limit does not eat the spot's capacity (limit and capacity exact together)", async () => {
    const spot = await createSpot(t);
    await setCapacity(t.db, spot, 5);
    const held = await cards(spot, 6);
    // five cards scanned three times each, concurrently: one pass per card
    const answers = await Promise.all(
      held
        .slice(0, 5)
        .flatMap((c) => [c, c, c])
        .map((c) => checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: c.cardNumber })),
    );
    const codes = answers.map((a) => a.body.errcode);
    expect(codes.filter((c) => c === 0)).toHaveLength(5);
    expect(codes.filter((c) => c === LIMIT)).toHaveLength(10);
    expect(await counter(spot.skuId)).toBe(5);
    expect(
      (await checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: held[5].cardNumber })).body.errcode,
    ).toBe(SPOT_FULL);
  });

  it("a person's cards: the capacity refuses after the card rules and the limit", async () => {
    const spot = await createSpot(t);
    await setCapacity(t.db, spot, 1);
    const first = await heldCard(t.db, spot.modelId);
    await heldCard(t.db, spot.modelId, {}, { id_no: first.idNo });
    expect((await checkIn(t, spot.checker.token, { skuId: spot.skuId, idNo: first.idNo })).body.errcode).toBe(0);
    // the person's second card has room, the spot has not
    expect((await checkIn(t, spot.checker.token, { skuId: spot.skuId, idNo: first.idNo })).body.errcode).toBe(
      SPOT_FULL,
    );
    // an unusable card is refused for itself, not for the capacity
    const disabled = await heldCard(t.db, spot.modelId, { status: 3 });
    expect(
      (await checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: disabled.cardNumber })).body.errcode,
    ).toBe(1_013_000_003);
  });

  it("revoking a check gives the spot's admission back", async () => {
    const spot = await createSpot(t);
    await setCapacity(t.db, spot, 2, [{ start: 0, end: 1440, capacity: 2 }]);
    const held = await cards(spot, 3);
    const ids: number[] = [];
    for (const c of held.slice(0, 2)) {
      const r = await checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: c.cardNumber });
      expect(r.body.errcode).toBe(0);
      ids.push(r.body.data.id);
    }
    expect(
      (await checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: held[2].cardNumber })).body.errcode,
    ).toBe(SPOT_FULL);
    const revoked = await t.post('/app-api/checker/deleteCheckerConsumeRecord', { id: ids[0] }, spot.checker.token);
    expect(revoked.body.errcode).toBe(0);
    expect(await counter(spot.skuId)).toBe(1);
    expect(await counter(spot.skuId, 0)).toBe(1);
    expect(
      (await checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: held[2].cardNumber })).body.errcode,
    ).toBe(0);
    expect(await counter(spot.skuId)).toBe(2);
  });

  it('a capacity set mid-day counts the admissions already made that day', async () => {
    const spot = await createSpot(t);
    const held = await cards(spot, 5);
    for (const c of held.slice(0, 3))
      expect((await checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: c.cardNumber })).body.errcode).toBe(
        0,
      );
    expect(await counter(spot.skuId)).toBeNull(); // a spot without capacity keeps no counter
    await setCapacity(t.db, spot, 4);
    expect(
      (await checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: held[3].cardNumber })).body.errcode,
    ).toBe(0);
    expect(
      (await checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: held[4].cardNumber })).body.errcode,
    ).toBe(SPOT_FULL);
    expect(await counter(spot.skuId)).toBe(4);
  });

  it('an offline scan is judged in the slot and on the day of its own time', async () => {
    const spot = await createSpot(t);
    const earlier = new Date(Date.now() - 26 * HOUR);
    const minute = earlier.getHours() * 60 + earlier.getMinutes();
    await setCapacity(t.db, spot, 1, [{ start: minute, end: minute + 1, capacity: 1 }]);
    const since = { active_time: new Date(Date.now() - 72 * HOUR) };
    const [a, b] = [await heldCard(t.db, spot.modelId, since), await heldCard(t.db, spot.modelId, since)];
    const at = { skuId: spot.skuId, checkTime: wire(earlier) };
    expect((await checkIn(t, spot.checker.token, { ...at, cardNumber: a.cardNumber })).body.errcode).toBe(0);
    expect((await checkIn(t, spot.checker.token, { ...at, cardNumber: b.cardNumber })).body.errcode).toBe(SPOT_FULL);
    // today is another day
    expect((await checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: b.cardNumber })).body.errcode).toBe(
      0,
    );
  });
});

describe('pruning', () => {
  it("drops the spots' counters of days no scan can reach any more, with the cards'", async () => {
    const spot = await createSpot(t);
    const old = dayText(new Date(Date.now() - 10 * 24 * HOUR));
    const live = dayText(new Date());
    await t.db
      .insertInto('spot_admission_count')
      .values([
        { sku_id: spot.skuId, check_date: old, slot_minute: -1, admitted: 3 },
        { sku_id: spot.skuId, check_date: live, slot_minute: -1, admitted: 3 },
      ])
      .execute();
    await pruneDayCounts(t.db);
    const left = await t.db
      .selectFrom('spot_admission_count')
      .select('check_date')
      .where('sku_id', '=', spot.skuId)
      .execute();
    expect(left.map((r) => r.check_date)).toEqual([live]);
  });
});

describe('record mode (an offline gate already admitted the visitor)', () => {
  const scan = (spot: Spot, cardNumber: string, nonce: string, at = new Date()) =>
    checkInScan(
      t.db,
      {
        checkerId: spot.checker.id,
        skuId: spot.skuId,
        entranceId: null,
        key: { cardNumber },
        nonce,
        at,
        offline: true,
        recordOverBounds: true,
      },
      { consumeNum: 1, checkType: 1, checkDate: dayText(at), nonce, photo: null, timeAllowed: true },
      null,
    );

  it('writes the check over the daily limit and the capacities, with one conflict row per bound broken', async () => {
    const spot = await createSpot(t);
    await setCapacity(t.db, spot, 1, [{ start: 0, end: 1440, capacity: 1 }]);
    const card = await heldCard(t.db, spot.modelId);
    const first = await scan(spot, card.cardNumber, `rec-a-${card.cardId}`);
    expect(first.written).toMatchObject({ conflicts: [], checksLeft: 0 });
    const second = await scan(spot, card.cardNumber, `rec-b-${card.cardId}`);
    expect(second.written!.conflicts).toEqual([
      { kind: ConflictKind.DAILY_LIMIT, limit: 1, count: 2 },
      { kind: ConflictKind.SPOT_CAPACITY, limit: 1, count: 2 },
      { kind: ConflictKind.SLOT_CAPACITY, limit: 1, count: 2 },
    ]);
    expect(second.written!.checksLeft).toBe(0);
    const rows = await t.db
      .selectFrom('card_check_conflict')
      .selectAll()
      .where('check_id', '=', second.written!.id)
      .orderBy('kind')
      .execute();
    expect(rows.map((r) => [r.kind, r.limit_value, r.count_value, Number(r.merchant_id), Number(r.shop_id)])).toEqual([
      [1, 1, 2, spot.merchantId, spot.shopId],
      [2, 1, 2, spot.merchantId, spot.shopId],
      [3, 1, 2, spot.merchantId, spot.shopId],
    ]);
    expect(await counter(spot.skuId)).toBe(2);
    // online, the counters raised by the record refuse the next scan
    const other = await heldCard(t.db, spot.modelId);
    expect(
      (await checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: other.cardNumber })).body.errcode,
    ).toBe(SPOT_FULL);
  });

  it('without a capacity only the daily limit conflicts; the other refusals stand', async () => {
    const spot = await createSpot(t);
    const card = await heldCard(t.db, spot.modelId);
    expect((await scan(spot, card.cardNumber, `rec-c-${card.cardId}`)).written!.conflicts).toEqual([]);
    const over = await scan(spot, card.cardNumber, `rec-d-${card.cardId}`);
    expect(over.written!.conflicts).toEqual([{ kind: ConflictKind.DAILY_LIMIT, limit: 1, count: 2 }]);
    const disabled = await heldCard(t.db, spot.modelId, { status: 3 });
    expect((await scan(spot, disabled.cardNumber, `rec-e-${disabled.cardId}`)).written).toBeNull();
    // a re-sent scan writes nothing and names the earlier check
    const again = await scan(spot, card.cardNumber, `rec-d-${card.cardId}`);
    expect(again.written).toBeNull();
    expect(again.earlier).toMatchObject({ kind: 'checked', checkId: over.written!.id });
  });
});
