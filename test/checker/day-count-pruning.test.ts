import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { firstLiveCounterDay, pruneDayCounts } from '../../src/modules/checker/day-count-pruning.js';
import { dayText } from '../../src/platform/date-range.js';
import { checkIn, createSpot, heldCard, HOUR, wire, type Spot } from './checkin-fixtures.js';

/** The daily check counters of days no scan can reach are deleted by the checker module's job. */

let t: TestApp;
let spot: Spot;

beforeAll(async () => {
  t = await createTestApp();
  spot = await createSpot(t);
});
afterAll(() => t?.close());

const DAY = 24 * HOUR;
const countersOf = (cardId: number) =>
  t.db
    .selectFrom('card_check_day_count')
    .select(['check_date', 'used'])
    .where('card_id', '=', cardId)
    .orderBy('check_date')
    .execute()
    .then((rows) => rows.map((r) => ({ day: String(r.check_date), used: r.used })));

describe('pruning the daily check counters', () => {
  it('keeps every day a scan may still reach (the offline window and a day more) and deletes the older ones', async () => {
    const now = new Date();
    expect(firstLiveCounterDay(now)).toBe(dayText(new Date(now.getTime() - 96 * HOUR)));

    const card = await heldCard(t.db, spot.modelId, { active_time: new Date(now.getTime() - 30 * DAY) });
    // Today's scan and an offline scan 70 hours old make their counters as the service does.
    for (const at of [null, new Date(now.getTime() - 70 * HOUR)]) {
      const body = { skuId: spot.skuId, cardNumber: card.cardNumber, ...(at ? { checkTime: wire(at) } : {}) };
      const r = await checkIn(t, spot.checker.token, body);
      expect(r.body.errcode, r.body.errmsg).toBe(0);
    }
    const old = [5, 30].map((d) => dayText(new Date(now.getTime() - d * DAY)));
    await t.db
      .insertInto('card_check_day_count')
      .values(old.map((day) => ({ card_id: card.cardId, resource_id: spot.spuId, check_date: day, used: 1 })))
      .execute();
    const live = [dayText(new Date(now.getTime() - 70 * HOUR)), dayText(now)].sort();
    expect((await countersOf(card.cardId)).map((c) => c.day)).toEqual([...old].sort().concat(live));

    expect(await pruneDayCounts(t.db, now)).toBeGreaterThanOrEqual(2);
    expect(await countersOf(card.cardId)).toEqual(live.map((day) => ({ day, used: 1 })));
    expect(await pruneDayCounts(t.db, now)).toBe(0);

    // The limit still holds on the days kept: the card's one entry of today is spent.
    const again = await checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: card.cardNumber });
    expect(again.body.errcode).not.toBe(0);
  });

  it('shares the work between two runs at once (two instances), neither failing', async () => {
    const card = await heldCard(t.db, spot.modelId);
    const days = Array.from({ length: 40 }, (_, i) => dayText(new Date(Date.now() - (10 + i) * DAY)));
    await t.db
      .insertInto('card_check_day_count')
      .values(days.map((day) => ({ card_id: card.cardId, resource_id: spot.spuId, check_date: day, used: 1 })))
      .execute();
    const [a, b] = await Promise.all([pruneDayCounts(t.db), pruneDayCounts(t.db)]);
    expect(a + b).toBeGreaterThanOrEqual(days.length);
    expect(await countersOf(card.cardId)).toEqual([]);
  });
});
